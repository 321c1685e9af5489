/* SPDX-License-Identifier: MIT */
/*
 * A thread that decompresses trace.dat CPU data ahead of the reader. Each
 * CPU's chunks are taken in order by whoever comes first (the thread, or
 * the reader when it catches up); a CPU's usable prefix (ready) grows as
 * its leading chunks finish. The thread serves the CPU whose decompressed
 * data leads the reader's position least.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include "tracedat/tracedat.h"

struct td_prefetch {
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	void *zctx;
	void (*job)(void *);
	void *job_arg;
	bool job_done;
};

static bool wanted(const struct pk_tracedat *td, const struct td_cpu *c)
{
	if (!td->nr_filter)
		return true;
	for (int i = 0; i < td->nr_filter; i++)
		if (td->filter[i] == c->cpu)
			return true;
	return false;
}

/* Under the lock: the CPU to serve next, or NULL when all is taken. */
static struct td_cpu *pick(struct pk_tracedat *td)
{
	struct td_cpu *best = NULL;
	size_t lead = 0;

	for (int i = 0; i < td->nr_bufs; i++) {
		struct td_buffer *b = &td->bufs[i];
		if (b->latency || !b->compressed)
			continue;
		for (int k = 0; k < b->nr_cpus; k++) {
			struct td_cpu *c = &b->cpus[k];
			if (!c->loaded || c->claimed >= c->nr_chunks ||
			    c->cerr || !wanted(td, c))
				continue;
			size_t used = __atomic_load_n(&c->used, __ATOMIC_RELAXED);
			size_t at = c->chunks[c->claimed].out;
			size_t l = at > used ? at - used : 0;
			if (!best || l < lead) {
				best = c;
				lead = l;
			}
		}
	}
	return best;
}

/* Under the lock: decompresses C's next chunk with the lock dropped. */
static void work(struct pk_tracedat *td, struct td_prefetch *pf,
		 struct td_cpu *c, void **zctx)
{
	uint32_t i = c->claimed++;

	pthread_mutex_unlock(&pf->lock);
	int r = pk__td_cpu_chunk(td, c, i, zctx);
	pthread_mutex_lock(&pf->lock);
	pk__td_cpu_chunk_done(c, i, r);
	pthread_cond_broadcast(&pf->cond);
}

static void *run(void *arg)
{
	struct pk_tracedat *td = arg;
	struct td_prefetch *pf = td->pf;
	struct td_cpu *c;

	if (pf->job)
		pf->job(pf->job_arg);
	pthread_mutex_lock(&pf->lock);
	pf->job_done = true;
	pthread_cond_broadcast(&pf->cond);
	while (!pf->stop && (c = pick(td)))
		work(td, pf, c, &pf->zctx);
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

void pk__td_prefetch_job_wait(struct pk_tracedat *td)
{
	struct td_prefetch *pf = td->pf;
	struct td_cpu *c;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	while (!pf->job_done) {
		if ((c = pick(td)))
			work(td, pf, c, &td->zctx);     /* help meanwhile */
		else
			pthread_cond_wait(&pf->cond, &pf->lock);
	}
	pthread_mutex_unlock(&pf->lock);
}

int pk__td_prefetch_wait(struct pk_tracedat *td, struct td_cpu *c, size_t need)
{
	struct td_prefetch *pf = td->pf;

	pthread_mutex_lock(&pf->lock);
	while (c->ready < need && !c->cerr) {
		if (c->claimed < c->nr_chunks)
			work(td, pf, c, &td->zctx);     /* help */
		else
			pthread_cond_wait(&pf->cond, &pf->lock);
	}
	pthread_mutex_unlock(&pf->lock);
	return 0;
}

int pk__td_prefetch_start(struct pk_tracedat *td, void (*job)(void *),
		      void *arg)
{
	struct td_prefetch *pf;
	bool any = false;
	int r;

	if (td->pf)
		return 0;
	for (int i = 0; i < td->nr_bufs; i++) {
		struct td_buffer *b = &td->bufs[i];
		if (b->latency || !b->compressed)
			continue;
		for (int k = 0; k < b->nr_cpus; k++) {
			struct td_cpu *c = &b->cpus[k];
			if (!wanted(td, c))
				continue;
			if (!c->loaded && pk__td_load_cpu(td, b, c) < 0) {
				/* left to the reader, which reports it */
				pk__bigbuf_free(&c->mem);
				pk__free(c->chunks);
				pk__free(c->cdone);
				c->data = NULL;
				c->chunks = NULL;
				c->cdone = NULL;
				c->nr_chunks = 0;
				c->loaded = false;
				continue;
			}
			any |= c->nr_chunks > 1;
		}
	}
	if (!any)
		return 0;
	pf = pk__zalloc(sizeof(*pf));
	if (!pf)
		return -ENOMEM;
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->cond, NULL);
	pf->job = job;
	pf->job_arg = arg;
	td->pf = pf;
	r = pthread_create(&pf->th, NULL, run, td);
	if (r) {
		pthread_mutex_destroy(&pf->lock);
		pthread_cond_destroy(&pf->cond);
		pk__free(pf);
		td->pf = NULL;
		return -r;
	}
	return 1;
}

void pk__td_prefetch_stop(struct pk_tracedat *td)
{
	struct td_prefetch *pf = td->pf;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_mutex_unlock(&pf->lock);
	pthread_join(pf->th, NULL);
	pk__td_decompress_free(pf->zctx);
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->cond);
	pk__free(pf);
	td->pf = NULL;
}
