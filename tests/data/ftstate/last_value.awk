# The value each file is left with by strace_writes.awk's lines (W
# replaces, A adds, R and M name the directory's fate), "path: value".
{ k = $1; p = $2; v = $0; sub(/^[WAMR] [^ ]* ?/, "", v)
  if (k == "W") val[p] = v; else if (k == "A") val[p] = val[p] (val[p] == "" ? "" : " ") v; else val[p] = k
  seen[p] = 1 }
END { for (p in seen) print p ": " val[p] }
