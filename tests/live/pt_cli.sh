#!/bin/sh
# perfkit pt dump / pt decode options the corpus does not exercise, and
# usage errors (exit 2, a message, no crash).
# pk-test: check
. tests/lib/sh.sh
C=$PK_SHARED/corpus/libipt
need_shared corpus/libipt/MANIFEST.tsv pt_cli || { t_exit; exit; }
A=$C/dump-all-packets/dump-all-packets.pt
"$PERFKIT" pt dump --no-sync "$A" >"$T_TMP/all"
"$PERFKIT" pt dump --no-sync --no-pad "$A" >"$T_TMP/nopad"
check pt_dump_no_pad "pad lines left or others lost" \
	"$(grep -c ' pad$' "$T_TMP/nopad")" -eq 0 -a \
	"$(grep -vc ' pad$' "$T_TMP/all")" -eq "$(wc -l <"$T_TMP/nopad")"
"$PERFKIT" pt dump --no-sync --no-timing "$A" >"$T_TMP/notiming"
check pt_dump_no_timing "timing packets shown" \
	"$(grep -cE '  (tsc|cbr|tma|mtc|cyc) ' "$T_TMP/notiming")" -eq 0 -a \
	"$(grep -cE '  (tsc|cbr|tma|mtc|cyc) ' "$T_TMP/all")" -eq 5
"$PERFKIT" pt dump --no-sync --quiet "$A" >"$T_TMP/quiet"
check pt_dump_quiet "--quiet printed something" ! -s "$T_TMP/quiet"
"$PERFKIT" pt dump --no-sync --raw --no-offset "$A" | head -1 >"$T_TMP/raw"
check pt_dump_raw "raw bytes column wrong: $(cat "$T_TMP/raw")" \
	"$(awk '{print $1}' "$T_TMP/raw")" = 0223
"$PERFKIT" pt dump --time --tcal "$A" >/dev/null 2>"$T_TMP/err"
rc=$?
check pt_dump_time_tcal "--time --tcal: exit $rc" $rc -eq 2 -a -s "$T_TMP/err"
"$PERFKIT" pt dump --mtc-freq "$A" >/dev/null 2>&1
check pt_dump_missing_arg "--mtc-freq without a value accepted" $? -eq 2
"$PERFKIT" pt dump "$T_TMP/no-such-dir/x.pt" >/dev/null 2>"$T_TMP/err"
rc=$?
check pt_dump_no_file "missing file: exit $rc" $rc -eq 1 -a -s "$T_TMP/err"
"$PERFKIT" pt dump --bogus "$A" >/dev/null 2>&1
check pt_dump_bad_option "unknown option accepted" $? -eq 2
"$PERFKIT" pt frobnicate >/dev/null 2>&1
check pt_bad_subcommand "unknown subcommand accepted" $? -eq 2
"$PERFKIT" pt decode --pt "$A" --raw "$T_TMP/no-such-file":0x1000 >/dev/null 2>&1
check pt_decode_bad_raw "missing --raw file accepted" $? -eq 2
"$PERFKIT" pt decode --raw "$C/loop-tnt-64/loop-tnt-64.bin:0x100000" \
	>/dev/null 2>&1
check pt_decode_no_pt "no --pt accepted" $? -eq 2
# Disassembly without --no-inst: every instruction line has text after it.
L=$C/loop-tnt-64
"$PERFKIT" pt decode --raw "$L/loop-tnt-64.bin:0x100000" --pt "$L/loop-tnt-64.pt" \
	>"$T_TMP/dis"
check pt_decode_disasm "instructions without disassembly" \
	"$(grep -c '^0000000000100011  jle ' "$T_TMP/dis")" -gt 10 -a \
	"$(grep -c '^[0-9a-f]*$' "$T_TMP/dis")" -eq 0
t_exit
