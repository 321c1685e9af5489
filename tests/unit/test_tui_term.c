/* SPDX-License-Identifier: MIT */
/*
 * The browser's terminal (cli/tui.c, compiled in) on a pseudo-terminal,
 * no tmux needed: a child takes the pty's slave as its terminal. Keys
 * decoded from the sequences terminals send; the modes (tcgetattr) back
 * as they were and the alternate screen left after tui_close, exit(),
 * and a death by SIGTERM, SIGHUP, SIGINT (twice), SIGUSR1, SIGSEGV and
 * SIGABRT.
 */
/* pk-test: check */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include "test.h"
#include "../../cli/tui.c"

struct pty {
	int master, slave;
	struct termios before;
};

static int pty_open(struct pty *p)
{
	p->master = posix_openpt(O_RDWR | O_NOCTTY);
	if (p->master < 0 || grantpt(p->master) || unlockpt(p->master))
		return -1;
	p->slave = open(ptsname(p->master), O_RDWR | O_NOCTTY);
	if (p->slave < 0 || tcgetattr(p->slave, &p->before))
		return -1;
	return 0;
}

/* In the child: the slave as the controlling terminal, stdin, stdout. */
static void child_tty(struct pty *p)
{
	struct rlimit no_core = { 0, 0 };

	setrlimit(RLIMIT_CORE, &no_core);
	setsid();
	ioctl(p->slave, TIOCSCTTY, 0);
	dup2(p->slave, 0);
	dup2(p->slave, 1);
	close(p->master);
}

static bool same_modes(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag &&
	       a->c_cflag == b->c_cflag && a->c_lflag == b->c_lflag &&
	       !memcmp(a->c_cc, b->c_cc, sizeof(a->c_cc));
}

/* What the child wrote on its screen (non-blocking, all there is). */
static size_t drain(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while (n + 1 < size && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	return n;
}

/* The modes as before and the screen left; STATUS as expected. */
static void check_restored(const char *name, struct pty *p, int status,
			   int want_sig, int want_exit)
{
	struct termios now;
	char out[8192];
	const char *enter, *leave;

	drain(p->master, out, sizeof(out));
	enter = strstr(out, "\033[?1049h");
	leave = enter ? strstr(enter, "\033[?1049l") : NULL;
	tcgetattr(p->slave, &now);
	if (want_sig && !(WIFSIGNALED(status) && WTERMSIG(status) == want_sig))
		t_fail(name, "status %#x, not death by signal %d", status,
		       want_sig);
	else if (!want_sig && !(WIFEXITED(status) &&
				WEXITSTATUS(status) == want_exit))
		t_fail(name, "status %#x, not exit %d", status, want_exit);
	else if (!enter || !leave)
		t_fail(name, "the alternate screen %s", enter ?
		       "was not left" : "was never entered");
	else if (!same_modes(&now, &p->before))
		t_fail(name, "the modes differ (lflag %#x, was %#x)",
		       (unsigned)now.c_lflag, (unsigned)p->before.c_lflag);
	else
		t_ok(name);
}

static void close_pty(struct pty *p)
{
	close(p->master);
	close(p->slave);
}

enum how { BY_CLOSE, BY_EXIT, BY_SIGNAL, BY_SIGNAL_TWICE };

/* A child opens the terminal and ends HOW; the parent checks. */
static void end_case(const char *name, enum how how, int sig)
{
	struct pty p;
	int status;
	pid_t pid;

	if (pty_open(&p) < 0) {
		t_skip(name, "no pseudo-terminal: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		struct tui *t;

		child_tty(&p);
		t = tui_open();
		if (!t)
			_exit(99);
		if (how == BY_CLOSE) {
			tui_close(t);
			_exit(0);
		}
		if (how == BY_EXIT)
			exit(3);
		raise(sig);
		if (how == BY_SIGNAL_TWICE)
			raise(sig);
		_exit(98);
	}
	waitpid(pid, &status, 0);
	check_restored(name, &p, status, how >= BY_SIGNAL ? sig : 0,
		       how == BY_EXIT ? 3 : 0);
	close_pty(&p);
}

static const struct {
	const char *bytes;
	int key;
} keys[] = {
	{ "\033[A", TUI_KEY_UP }, { "\033[B", TUI_KEY_DOWN },
	{ "\033[C", TUI_KEY_RIGHT }, { "\033[D", TUI_KEY_LEFT },
	{ "\033OA", TUI_KEY_UP }, { "\033[5~", TUI_KEY_PGUP },
	{ "\033[6~", TUI_KEY_PGDN }, { "\033[H", TUI_KEY_HOME },
	{ "\033[F", TUI_KEY_END }, { "\033[1~", TUI_KEY_HOME },
	{ "\033[4~", TUI_KEY_END }, { "\033OH", TUI_KEY_HOME },
	{ "\033OF", TUI_KEY_END }, { "\033[7~", TUI_KEY_HOME },
	{ "\033[8~", TUI_KEY_END }, { "\033[3~", TUI_KEY_DEL },
	{ "\033[1;5A", TUI_KEY_UP }, { "\r", TUI_KEY_ENTER },
	{ "\177", TUI_KEY_BACKSPACE }, { "\003", TUI_KEY_CTRL_C },
	{ "q", 'q' }, { "/", '/' }, { "\033[99~", TUI_KEY_NONE },
	{ "\033", TUI_KEY_ESC },	/* last: a lone Esc times out */
};
#define NR_KEYS (int)(sizeof(keys) / sizeof(keys[0]))

/* The child decodes what the parent typed, each key's code on a pipe. */
static void keys_case(void)
{
	struct pty p;
	int fds[2], status, got[NR_KEYS], n = 0;
	pid_t pid;

	if (pty_open(&p) < 0 || pipe(fds) < 0) {
		t_skip("tui keys", "no pseudo-terminal: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		struct tui *t;

		close(fds[0]);
		child_tty(&p);
		t = tui_open();
		if (!t)
			_exit(99);
		/* raw mode on: the parent may type */
		if (write(fds[1], &n, sizeof(n)) != sizeof(n))
			_exit(97);
		for (int i = 0; i < NR_KEYS; i++) {
			int k = tui_key(t);

			if (write(fds[1], &k, sizeof(k)) != sizeof(k))
				_exit(97);
		}
		tui_close(t);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &got[0], sizeof(got[0])) != sizeof(got[0]))
		t_fail("tui keys", "the child did not open the terminal");
	for (int i = 0; i < NR_KEYS; i++)
		if (write(p.master, keys[i].bytes, strlen(keys[i].bytes)) < 0)
			break;
	while (n < NR_KEYS && read(fds[0], &got[n], sizeof(got[n])) ==
	       sizeof(got[n]))
		n++;
	close(fds[0]);
	waitpid(pid, &status, 0);
	for (int i = 0; i < NR_KEYS; i++) {
		char name[64];

		snprintf(name, sizeof(name), "tui key %d", i);
		if (i >= n)
			t_fail(name, "the child read %d keys", n);
		else
			t_check(got[i] == keys[i].key, name,
				"got %#x, want %#x", got[i], keys[i].key);
	}
	check_restored("tui keys: restored by tui_close", &p, status, 0, 0);
	close_pty(&p);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	keys_case();
	end_case("tui restored by tui_close", BY_CLOSE, 0);
	end_case("tui restored by exit", BY_EXIT, 0);
	end_case("tui restored by SIGTERM", BY_SIGNAL, SIGTERM);
	end_case("tui restored by SIGHUP", BY_SIGNAL, SIGHUP);
	end_case("tui restored by two SIGINTs", BY_SIGNAL_TWICE, SIGINT);
	end_case("tui restored by SIGUSR1", BY_SIGNAL, SIGUSR1);
#if defined(__SANITIZE_ADDRESS__)
	/* the sanitizer's own SIGSEGV handler reports and exits first */
	printf("skipped: tui restored by SIGSEGV: AddressSanitizer handles SIGSEGV\n");
#else
	end_case("tui restored by SIGSEGV", BY_SIGNAL, SIGSEGV);
#endif
	end_case("tui restored by SIGABRT", BY_SIGNAL, SIGABRT);
	return t_exit();
}
