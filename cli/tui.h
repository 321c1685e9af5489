/* SPDX-License-Identifier: MIT */
/*
 * The terminal browser of report/top (perf's TUI), in two parts:
 *
 * - the terminal (cli/tui.c): raw mode on the tty, the alternate screen,
 *   the cursor hidden, the window size (SIGWINCH), keys decoded from
 *   escape sequences, a frame drawn into a buffer and written at once.
 *   The saved modes come back on every way out: tui_close, exit()
 *   (atexit), and every signal whose default action ends the process
 *   (INT TERM HUP QUIT ALRM USR1 USR2 XCPU XFSZ VTALRM SYS and the crash
 *   signals SEGV BUS FPE ILL ABRT: restored, then the signal again with
 *   its default action), unless the process ignores or handles it
 *   already. Raw mode reads Ctrl-C as a key (the browser quits); Ctrl-Z
 *   (and SIGTSTP) restores and stops, SIGCONT takes the screen back.
 *
 * - the browser (cli/tui_browse.c): a sorted tree list drawn from a model
 *   the caller gives (struct tui_model), knowing nothing of perf.data.
 *   Keys: Up/Down, PgUp/PgDn (and space), Home/End move; Enter or +
 *   expands/collapses the selected row, Right expands it, Left collapses
 *   it or goes to its parent; e expands/collapses all of it, E
 *   expands everything, C collapses everything; / filters the top rows
 *   by the model's match (an empty text removes the filter); d zooms into
 *   the selected row's DSO, t into its thread (the same key again zooms
 *   out); Esc zooms out of both, else drops the filter, else leaves; a
 *   annotates; ? or h shows the keys; q and Ctrl-C leave the browser.
 *
 * For report: the top rows are the sorted entries, their children the
 * callchain nodes; text lays out the columns (the header's widths), the
 * zoom keys are the entry's DSO name and its thread, match compares the
 * symbol, annotate runs the annotate browser on the entry's symbol.
 *
 * Screen: the title on the first line (the model's, plus ", DSO: X",
 * ", Thread: X" when zoomed), the model's column header on the second
 * when it has one, the rows, and a status line at the bottom.
 */
#ifndef PK_CLI_TUI_H
#define PK_CLI_TUI_H
#include <stdbool.h>
#include <stddef.h>

/* What d and t zoom by: the key the model gives each row. */
enum tui_zoom { TUI_ZOOM_DSO, TUI_ZOOM_THREAD, TUI_NR_ZOOMS };

struct tui;

/* Where a row is drawn: its index among the rows shown (IDX), the first
 * on screen (TOP), how many fit (ROWS), the selected one (SEL). */
struct tui_frame {
	int idx, top, rows, sel;
};

/* What the browser shows of a model: the zoom keys (NULL: not zoomed)
 * and the / filter ("" : none). */
struct tui_view {
	const char *zoom[TUI_NR_ZOOMS];
	const char *filter;
};

/*
 * A model: a tree of rows, each an opaque pointer the model owns, stable
 * and distinct while the browser runs (until a refresh: see there; the
 * browser keeps which rows are expanded by pointer). NULL stands for the
 * root: its children are the top rows, in the order shown. Only
 * nr_children, child and text are required; a NULL callback means the
 * feature is off. title and header are read at every frame (the model
 * may rewrite the strings they point to); text is asked for the rows on
 * screen (and, while a / filter is on and match is NULL, for every top
 * row), nr_children/child for the rows shown.
 */
struct tui_model {
	void *ctx;		/* passed to every callback */
	const char *title;	/* first line */
	const char *header;	/* column titles above the rows, or NULL */
	/* children of ROW (NULL: the top rows); 0: not expandable */
	int (*nr_children)(void *ctx, void *row);
	void *(*child)(void *ctx, void *row, int i);
	/* ROW's line (its columns laid out by the model) into BUF, at most
	 * SIZE bytes with the NUL; the browser draws before it the
	 * indentation, the mark ('+' closed, '-' open, ' ' no children) and
	 * a space; the header is drawn two columns in, over the text */
	void (*text)(void *ctx, void *row, char *buf, size_t size);
	/* the columns before the mark of ROW, DEPTH deep (0: a top row);
	 * NULL: 2 * DEPTH */
	int (*indent)(void *ctx, void *row, int depth);
	/* the key a top row is zoomed by (a DSO name, a thread), or NULL
	 * when it has none; compared with strcmp */
	const char *(*zoom_key)(void *ctx, void *row, enum tui_zoom z);
	/* whether a top row matches the / text; NULL: its text holds it */
	bool (*match)(void *ctx, void *row, const char *needle);
	/* a: annotate ROW, typically by tui_browse with another model on T;
	 * returns what that returned (1: leave this browser too), or -errno
	 * (shown on the status line); NULL: the key says "not available" */
	int (*annotate)(void *ctx, void *row, struct tui *t);
	/* top: called every refresh_ms milliseconds without a key, to
	 * update the rows (and the title and header, which stay at the same
	 * addresses); returns 0 or -errno (shown on the status line). A row
	 * that stays keeps its pointer (and so its expansion and the
	 * selection); expansions of rows not found are dropped (a new row at
	 * a gone row's address may inherit its expansion) */
	int (*refresh)(void *ctx);
	int refresh_ms;
	/* before the first frame and when the view changes (a zoom, a
	 * filter): the model may change its title and header (in place) and
	 * its rows' text, as report's title counts the samples shown and a
	 * zoomed column goes */
	void (*set_view)(void *ctx, const struct tui_view *v);
	/* a list, not a tree: the rows and the header drawn from the first
	 * column, no indentation or marks (report without callchains) */
	bool no_marks;
	/* with no_marks: ROW's line drawn where the frame F has it (the
	 * annotate browser: the first row on screen names the column, the
	 * selected jump's arrow runs over the rows); NULL: text */
	void (*text_at)(void *ctx, void *row, const struct tui_frame *f,
			char *buf, size_t size);
	/* start with row START_ROW (a top row's index) selected and, as
	 * perf's annotate browser, half a screen above it on top; the list
	 * may then end above the status line */
	bool start_centered;
	int start_row;
	/* the first move key (arrows, pages, Home, End, space) moves
	 * nothing, as perf's browser's shows the cursor first */
	bool nav_arms;
	/* the bottom line when nothing else is said there; NULL: the
	 * browser's keys */
	const char *status;
};

/* Whether the browser can run: stdout is a terminal and TERM names one
 * (set, not "dumb"); else report prints its text output. */
bool tui_available(void);

/*
 * Takes the terminal: stdout must be a tty; keys come from stdin when it
 * is one, else from /dev/tty. Saves the modes, sets raw mode, enters the
 * alternate screen and hides the cursor, and installs the restoring
 * handlers. One terminal at a time. Returns NULL with errno set (ENOTTY:
 * no terminal; EBUSY: one is open).
 */
struct tui *tui_open(void);
/* Gives the terminal back as it was found and removes the handlers;
 * NULL is ignored. */
void tui_close(struct tui *t);

/* Runs the browser on M until q, Esc or Ctrl-C. Nests: the a callback
 * may call it on the same T. Returns 0 after q or Esc, 1 after Ctrl-C
 * (the caller leaves too), or -errno when the terminal fails (EIO: it
 * went away) or memory runs out. */
int tui_browse(struct tui *t, const struct tui_model *m);

/* A model of plain lines (help, a simple annotate view): N strings shown
 * as top rows, none expandable; the strings stay the caller's. */
struct tui_lines {
	struct tui_model model;
	const char *const *lines;
	int n;
};
void tui_lines_init(struct tui_lines *l, const char *title,
		    const char *const *lines, int n);

/* The terminal layer under the browser (cli/tui.c). */
enum tui_key {
	TUI_KEY_NONE = -1,	/* nothing: the window changed size */
	TUI_KEY_UP = 0x100, TUI_KEY_DOWN, TUI_KEY_LEFT, TUI_KEY_RIGHT,
	TUI_KEY_PGUP, TUI_KEY_PGDN, TUI_KEY_HOME, TUI_KEY_END,
	TUI_KEY_DEL, TUI_KEY_ESC, TUI_KEY_ENTER, TUI_KEY_BACKSPACE,
	TUI_KEY_CTRL_C,
	TUI_KEY_TIMEOUT,	/* tui_key_wait: no key in time */
};
/* The next key (a byte, or a TUI_KEY_*), TUI_KEY_NONE after a resize, or
 * -errno (EIO: end of input). */
int tui_key(struct tui *t);
/* tui_key waiting at most MS milliseconds (-1: for ever): else
 * TUI_KEY_TIMEOUT. */
int tui_key_wait(struct tui *t, int ms);
/* The window size, as of the last resize. */
void tui_size(const struct tui *t, int *rows, int *cols);
/* A frame: tui_begin clears the buffer; tui_line puts TEXT on screen
 * line Y (0 first), cut or padded to the width, reversed when INVERSE;
 * tui_flush writes the frame in one write. */
void tui_begin(struct tui *t);
void tui_line(struct tui *t, int y, const char *text, bool inverse);
int tui_flush(struct tui *t);

#endif
