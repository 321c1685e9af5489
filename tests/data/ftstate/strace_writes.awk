# strace -e trace=openat,write,close,mkdir,rmdir output -> one line per
# change under ROOT: "W path value" (a write replacing the content), "A
# path value" (added to a list file: set_event, pid lists, function
# lists, dynamic events, triggers, opened without O_TRUNC or written
# twice), "R path" (rmdir tried: a test tree's refuses), "M path" (a new
# directory). A trailing newline is dropped and others become blanks, as
# PERFKIT_TRACEFS_LOG writes them. Used by tests/live/ftrace_state.sh to
# compare trace-cmd's writes with perfkit's.
function rel(p) { if (index(p, ROOT "/") != 1) return ""; return substr(p, length(ROOT) + 2) }
function listf(p,  b) { b = p; sub(/.*\//, "", b); return b ~ /^(set_ftrace_filter|set_ftrace_notrace|set_graph_function|set_graph_notrace|set_event|set_event_pid|set_ftrace_pid|set_event_notrace_pid|set_ftrace_notrace_pid|dynamic_events|kprobe_events|uprobe_events|synthetic_events|trigger|stack_trace_filter)$/ }
function str(s) { sub(/^"/, "", s); sub(/"(\.\.\.)?$/, "", s); gsub(/\\n$/, "", s); gsub(/\\n/, " ", s); gsub(/\\"/, "\"", s); return s }
{ sub(/^[0-9]+ +/, "") }
/^openat\(/ {
	if (!match($0, /"[^"]*"/)) next
	p = rel(substr($0, RSTART + 1, RLENGTH - 2)); if (p == "" || $0 !~ /O_WRONLY|O_RDWR/) next
	if ($0 !~ /= [0-9]+$/) next; fd = $NF
	path[fd] = p; tr[fd] = ($0 ~ /O_TRUNC/); nw[fd] = 0; next
}
/^write\(/ {
	fd = substr($0, 7); sub(/,.*/, "", fd); if (!(fd in path)) next
	v = $0; sub(/^write\([0-9]+, /, "", v); sub(/, [0-9]+\) += .*$/, "", v)
	k = (tr[fd] && !nw[fd]) || !listf(path[fd]) ? "W" : "A"
	print k " " path[fd] " " str(v); nw[fd]++; next
}
/^close\(/ { fd = substr($0, 7); sub(/\).*/, "", fd); if ((fd in path) && tr[fd] && !nw[fd]) print "W " path[fd] " "; delete path[fd]; next }
/^(rmdir|mkdir)\(/ { if (!match($0, /"[^"]*"/)) next; p = rel(substr($0, RSTART + 1, RLENGTH - 2)); if (p != "" && (/^rmdir/ || $0 ~ /= 0$/)) print (/^rmdir/ ? "R " : "M ") p }
