/* SPDX-License-Identifier: MIT */
/*
 * The terminal of the browser (cli/tui.h): raw mode, the alternate
 * screen, keys, frames; the modes restored on every way out. No curses:
 * a handful of ANSI sequences every terminal emulator knows.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "tui.h"

#define ENTER_SEQ "\033[?1049h\033[?25l\033[H\033[2J"
#define LEAVE_SEQ "\030\033[0m\033[?25h\033[?1049l"
#define ESC_WAIT_MS 50	/* the rest of an escape sequence comes within */

struct tui {
	int in, out;
	bool own_in;		/* in is /dev/tty, opened here */
	struct termios saved;
	int rows, cols;
	char *buf;		/* the frame */
	size_t len, cap;
	bool nomem;
	sigset_t wait_mask;	/* the mask in ppoll: WINCH and CONT let in */
	sigset_t old_mask;
};

/* One terminal: the signal handlers reach it through these. */
static struct tui term;
static volatile sig_atomic_t term_raw;	/* raw mode and the screen are on */
static volatile sig_atomic_t term_open;
static volatile sig_atomic_t got_winch, got_cont;
static bool atexit_done;

/* The signals whose default action ends (or stops) the process; one the
 * process ignores or handles already is left so (a handler of the
 * caller's ends through exit(), and atexit restores). */
static const int restore_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGALRM, SIGUSR1, SIGUSR2,
	SIGXCPU, SIGXFSZ, SIGVTALRM, SIGSYS,
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
};
#define NR_RESTORE (int)(sizeof(restore_signals) / sizeof(restore_signals[0]))
static struct sigaction old_actions[NR_RESTORE];
static struct sigaction old_winch, old_cont;

/* Async-signal-safe: the screen and the modes back as they were. */
static void term_restore(void)
{
	ssize_t w;

	if (!term_raw)
		return;
	term_raw = 0;
	w = write(term.out, LEAVE_SEQ, sizeof(LEAVE_SEQ) - 1);
	(void)w;
	tcsetattr(term.in, TCSANOW, &term.saved);
}

static int term_enter(void)
{
	struct termios raw = term.saved;
	ssize_t w;

	raw.c_iflag &= ~(tcflag_t)(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
	raw.c_cflag |= CS8;
	raw.c_lflag &= ~(tcflag_t)(ECHO | ICANON | IEXTEN | ISIG);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(term.in, TCSANOW, &raw) < 0)
		return -errno;
	term_raw = 1;
	w = write(term.out, ENTER_SEQ, sizeof(ENTER_SEQ) - 1);
	return w < 0 ? -errno : 0;
}

/* A stop or crash signal: the terminal back, then the signal's default
 * action (it is blocked here and comes again when the handler returns).
 * SIGTSTP stops; SIGCONT then takes the screen back (tui_key). */
static void on_signal(int sig)
{
	struct sigaction dfl;

	term_restore();
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	raise(sig);
}

static void on_winch(int sig)
{
	(void)sig;
	got_winch = 1;
}

static void on_cont(int sig)
{
	(void)sig;
	got_cont = 1;
}

static void catch(int sig, void (*fn)(int), struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigfillset(&sa.sa_mask);	/* a second signal waits for the first */
	sigaction(sig, &sa, old);
}

static void install_handlers(void)
{
	for (int i = 0; i < NR_RESTORE; i++) {
		catch(restore_signals[i], on_signal, &old_actions[i]);
		if (old_actions[i].sa_handler != SIG_DFL)
			sigaction(restore_signals[i], &old_actions[i], NULL);
	}
	catch(SIGWINCH, on_winch, &old_winch);
	catch(SIGCONT, on_cont, &old_cont);
}

static void remove_handlers(void)
{
	for (int i = 0; i < NR_RESTORE; i++)
		sigaction(restore_signals[i], &old_actions[i], NULL);
	sigaction(SIGWINCH, &old_winch, NULL);
	sigaction(SIGCONT, &old_cont, NULL);
}

static void at_exit(void)
{
	if (term_open)
		tui_close(&term);
}

static void read_size(struct tui *t)
{
	struct winsize ws;

	if (ioctl(t->out, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		t->rows = ws.ws_row;
		t->cols = ws.ws_col;
	} else {
		t->rows = 24;
		t->cols = 80;
	}
}

static int open_input(struct tui *t)
{
	t->in = STDIN_FILENO;
	t->own_in = false;
	if (isatty(t->in))
		return 0;
	t->in = open("/dev/tty", O_RDWR | O_CLOEXEC);
	if (t->in < 0)
		return -ENOTTY;
	t->own_in = true;
	return 0;
}

/* WINCH and CONT are blocked but inside ppoll: none is missed. */
static void block_signals(struct tui *t)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGWINCH);
	sigaddset(&s, SIGCONT);
	sigprocmask(SIG_BLOCK, &s, &t->old_mask);
	t->wait_mask = t->old_mask;
	sigdelset(&t->wait_mask, SIGWINCH);
	sigdelset(&t->wait_mask, SIGCONT);
}

bool tui_available(void)
{
	const char *term_name = getenv("TERM");

	return isatty(STDOUT_FILENO) && term_name && *term_name &&
	       strcmp(term_name, "dumb");
}

struct tui *tui_open(void)
{
	struct tui *t = &term;
	int err;

	if (term_open) {
		errno = EBUSY;
		return NULL;
	}
	if (!isatty(STDOUT_FILENO) || open_input(t) < 0) {
		errno = ENOTTY;
		return NULL;
	}
	t->out = STDOUT_FILENO;
	if (tcgetattr(t->in, &t->saved) < 0) {
		err = errno;
		goto fail;
	}
	if (!atexit_done && atexit(at_exit) == 0)
		atexit_done = true;
	block_signals(t);
	install_handlers();
	term_open = 1;
	read_size(t);
	err = -term_enter();
	if (!err)
		return t;
	tui_close(t);
	errno = err;
	return NULL;
fail:
	if (t->own_in)
		close(t->in);
	errno = err;
	return NULL;
}

void tui_close(struct tui *t)
{
	if (!t || !term_open)
		return;
	term_restore();
	remove_handlers();
	sigprocmask(SIG_SETMASK, &t->old_mask, NULL);
	if (t->own_in)
		close(t->in);
	free(t->buf);
	t->buf = NULL;
	t->len = t->cap = 0;
	term_open = 0;
}

void tui_size(const struct tui *t, int *rows, int *cols)
{
	*rows = t->rows;
	*cols = t->cols;
}

/* A byte of input: >= 0, -EAGAIN when none came within MS (-1: wait
 * for ever), -EINTR on WINCH or CONT, -EIO at the end of input. */
static int read_byte(struct tui *t, int ms)
{
	struct pollfd p = { .fd = t->in, .events = POLLIN };
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	unsigned char c;
	int n;

	n = ppoll(&p, 1, ms < 0 ? NULL : &ts, &t->wait_mask);
	if (n < 0)
		return errno == EINTR ? -EINTR : -errno;
	if (n == 0)
		return -EAGAIN;
	n = (int)read(t->in, &c, 1);
	if (n == 1)
		return c;
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return -EINTR;
	return -EIO;
}

static int csi_tilde(int num)
{
	switch (num) {
	case 1: case 7: return TUI_KEY_HOME;
	case 4: case 8: return TUI_KEY_END;
	case 3: return TUI_KEY_DEL;
	case 5: return TUI_KEY_PGUP;
	case 6: return TUI_KEY_PGDN;
	}
	return TUI_KEY_NONE;
}

static int csi_final(int c)
{
	switch (c) {
	case 'A': return TUI_KEY_UP;
	case 'B': return TUI_KEY_DOWN;
	case 'C': return TUI_KEY_RIGHT;
	case 'D': return TUI_KEY_LEFT;
	case 'H': return TUI_KEY_HOME;
	case 'F': return TUI_KEY_END;
	}
	return TUI_KEY_NONE;
}

/* After ESC: a lone Esc, or ESC [ params final / ESC O final. An
 * unknown sequence is read to its end and gives TUI_KEY_NONE. */
static int decode_escape(struct tui *t)
{
	int c = read_byte(t, ESC_WAIT_MS), num = 0;

	if (c == -EAGAIN)
		return TUI_KEY_ESC;
	if (c < 0)
		return c == -EINTR ? TUI_KEY_ESC : c;
	if (c != '[' && c != 'O')
		return TUI_KEY_NONE;	/* Alt-key: nothing bound */
	for (;;) {
		c = read_byte(t, ESC_WAIT_MS);
		if (c < 0)
			return c == -EIO ? c : TUI_KEY_NONE;
		if (c >= '0' && c <= '9') {
			if (num < 1000)
				num = num * 10 + (c - '0');
		}
		else if (c == ';')
			num = 0;
		else if (c >= 0x40 && c <= 0x7e)
			return c == '~' ? csi_tilde(num) : csi_final(c);
	}
}

/* Back from a stop: SIGTSTP's handler again (when it was ours), raw
 * mode, a new size. */
static int resume(struct tui *t)
{
	struct sigaction sa;

	got_cont = 0;
	for (int i = 0; i < NR_RESTORE; i++)
		if (restore_signals[i] == SIGTSTP &&
		    old_actions[i].sa_handler == SIG_DFL)
			catch(SIGTSTP, on_signal, &sa);
	if (term_raw)
		return 0;
	read_size(t);
	return term_enter();
}

/* Ctrl-Z (raw mode reads it as a byte): SIGTSTP to the process group as
 * the tty would send it; its handler gives the terminal back and stops;
 * when continued the screen is taken again here (SIGCONT, blocked until
 * the next wait, then finds it taken). */
static int suspend(struct tui *t)
{
	int err;

	kill(0, SIGTSTP);
	err = resume(t);
	return err < 0 ? err : TUI_KEY_NONE;
}

static int decode(struct tui *t, int c)
{
	switch (c) {
	case 033: return decode_escape(t);
	case '\r': case '\n': return TUI_KEY_ENTER;
	case 0x7f: case 0x08: return TUI_KEY_BACKSPACE;
	case 0x03: return TUI_KEY_CTRL_C;
	case 0x1a: return suspend(t);
	}
	return c;
}

int tui_key(struct tui *t)
{
	return tui_key_wait(t, -1);
}

int tui_key_wait(struct tui *t, int ms)
{
	int c, err;

	for (;;) {
		if (got_cont) {
			err = resume(t);
			return err < 0 ? err : TUI_KEY_NONE;
		}
		if (got_winch) {
			got_winch = 0;
			read_size(t);
			return TUI_KEY_NONE;
		}
		c = read_byte(t, ms);
		if (c == -EAGAIN)
			return TUI_KEY_TIMEOUT;
		if (c != -EINTR)
			return c < 0 ? c : decode(t, c);
	}
}

/* The frame buffer. */
static void put(struct tui *t, const char *s, size_t n)
{
	if (t->nomem)
		return;
	if (t->len + n > t->cap) {
		size_t cap = t->cap ? t->cap : 8192;
		char *b;

		while (cap < t->len + n)
			cap *= 2;
		b = realloc(t->buf, cap);
		if (!b) {
			t->nomem = true;
			return;
		}
		t->buf = b;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
}

static void puts_(struct tui *t, const char *s)
{
	put(t, s, strlen(s));
}

void tui_begin(struct tui *t)
{
	t->len = 0;
	t->nomem = false;
}

/* TEXT cut to COLS columns (a UTF-8 continuation byte takes none;
 * controls show as '?'), then spaces to the edge. */
static void put_cut(struct tui *t, const char *text, int cols)
{
	const unsigned char *s = (const unsigned char *)text;
	int col = 0;

	for (; *s; s++) {
		bool cont = (*s & 0xc0) == 0x80;

		if (!cont && col == cols)
			break;
		if (*s < 0x20 || *s == 0x7f)
			put(t, "?", 1);
		else
			put(t, (const char *)s, 1);
		col += !cont;
	}
	for (; col < cols; col++)
		put(t, " ", 1);
}

void tui_line(struct tui *t, int y, const char *text, bool inverse)
{
	char pos[32];
	int n;

	if (y < 0 || y >= t->rows)
		return;
	n = snprintf(pos, sizeof(pos), "\033[%d;1H%s", y + 1,
		     inverse ? "\033[7m" : "");
	put(t, pos, (size_t)n);
	put_cut(t, text, t->cols);
	if (inverse)
		puts_(t, "\033[0m");
}

int tui_flush(struct tui *t)
{
	size_t off = 0;

	if (t->nomem)
		return -ENOMEM;
	while (off < t->len) {
		ssize_t w = write(t->out, t->buf + off, t->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EIO;
		off += (size_t)w;
	}
	t->len = 0;
	return 0;
}
