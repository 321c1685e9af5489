#!/bin/sh
# perf record --kcore directories: perfkit script and report -i DIR read
# the perf.data in DIR/data and the kernel's code from DIR/kcore_dir/kcore
# with DIR/kcore_dir/kallsyms' symbols, as perf 6.1 does, byte for byte.
# tests/live/ptkcore.py writes the directories at test time: an Intel PT
# trace through kernel code (and a module's) that only the kcore holds.
# Also -i DIR/data (perf's kernel symbols then: /proc/kallsyms, or none
# for a build id it cannot find: decoding fails where the code is), the
# rules for not using the kcore (modules file missing, _text elsewhere),
# and a bad kcore: perf's output, one line naming the file, no crash.
. tests/lib/sh.sh
need_cmd pt_kcore perf "perf is not installed"
need_cmd pt_kcore python3 "python3 is not installed"
need_built pt_kcore "$PERFKIT"
PK=$(cd "$(dirname "$PERFKIT")" && pwd)/$(basename "$PERFKIT")
export LC_ALL=C TZ=UTC PERF_PAGER=cat
D=$T_TMP/d
mkdir -p "$T_TMP/bid" "$D"
# (a private build-id cache: perf looks the kernel's build id up there)
PERF="perf --buildid-dir $T_TMP/bid"
mk() { # NAME ARGS...: the directory $D/NAME
	_mn=$1
	shift
	t_python tests/live/ptkcore.py "$D/$_mn" "$@" ||
		fail "pt_kcore:mk:$_mn" "ptkcore.py failed"
}
mk plain
mk module --module --build-id 0102030405060708090a0b0c0d0e0f1011121314
mk nomods --no-modules
mk text --bad-text
mk badcore --bad-kcore
mk nocore --no-kcore
mk guest --guest
mk gcode --guest-code
mk gcvcpu --guest-code --vcpu
# same NAME PATH CMD ARGS...: perf's and perfkit's stdout equal, rc 0
same() {
	_sn=$1 _sp=$2 _sc=$3
	shift 3
	$PERF $_sc -i "$_sp" "$@" 2>"$T_TMP/perf.err" |
		sed '/^# (Tip: /d' >"$T_TMP/perf"
	"$PK" $_sc -i "$_sp" "$@" 2>"$T_TMP/pk.err" >"$T_TMP/pk.raw"
	_sr=$?
	sed '/^# (Tip: /d' "$T_TMP/pk.raw" >"$T_TMP/pk"
	check "pt_kcore:$_sn" "rc=$_sr $(head -1 "$T_TMP/pk.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
		$_sr -eq 0 -a -s "$T_TMP/perf" -a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
}
P=$D/plain
same b "$P" script --itrace=b
same be-flags "$P" script --itrace=be -F +flags
same i1i-ip-sym "$P" script --itrace=i1i -F ip,sym
same call-trace "$P" script --call-trace
same call-ret-trace "$P" script --call-ret-trace
same insn-trace "$P" script --insn-trace
same i1ig "$P" script --itrace=i1ig
same all-letters "$P" script --itrace=i2ibxwpe -F +flags,+addr
same report-i1i "$P" report --stdio --itrace=i1i
same report-b-dso-sym "$P" report --stdio --itrace=b --sort dso,sym
same report-i1ig "$P" report --stdio --itrace=i1ig
# the code walked is the kcore's: every instruction, no error
"$PK" script -i "$P" --itrace=i1ie -F ip,sym >"$T_TMP/pk" 2>"$T_TMP/pk.err"
check pt_kcore:flow "$(tr '\n' '|' <"$T_TMP/pk")" \
	"$(awk '{print $2}' "$T_TMP/pk" | tr '\n' ' ')" = \
	"kfunc_a kfunc_a kfunc_b kfunc_b kfunc_b kfunc_a kfunc_a kfunc_a kfunc_a mod_fn mod_fn kfunc_local kfunc_local " \
	-a ! -s "$T_TMP/pk.err"
# a module mapped where modules says (its maps replaced by the kcore's),
# a build id the kcore directory does not need
M=$D/module
same module-b "$M" script --itrace=b
same module-i1i "$M" script --itrace=i1i -F ip,sym,dso
same module-report "$M" report --stdio --itrace=i1i
# the perf.data alone: perf's kernel symbols for it, no kcore
same data-be "$P/data" script --itrace=be
same data-i1ie "$P/data" script --itrace=i1ie -F ip,sym
same data-report "$P/data" report --stdio --itrace=b --sort dso,sym
same data-bid-be "$M/data" script --itrace=be
# perf does not use the kcore without a modules file, nor when the
# kernel map's _text is elsewhere in kallsyms
same nomods-be "$D/nomods" script --itrace=be
same text-be "$D/text" script --itrace=be
# inject from a directory writes one (OUT/data, the kcore_dir copied),
# as perf inject does: perf script reads both alike, perfkit script too
$PERF inject --itrace=i1ib -i "$P" -o "$T_TMP/inj.perf" 2>/dev/null
"$PK" inject --itrace=i1ib -i "$P" -o "$T_TMP/inj.pk" 2>"$T_TMP/pk.err"
_ir=$?
$PERF script -i "$T_TMP/inj.perf" >"$T_TMP/perf" 2>/dev/null
$PERF script -i "$T_TMP/inj.pk" >"$T_TMP/pk" 2>/dev/null
check pt_kcore:inject "rc=$_ir $(head -1 "$T_TMP/pk.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
	$_ir -eq 0 -a -s "$T_TMP/perf" -a -f "$T_TMP/inj.pk/kcore_dir/kcore" \
	-a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
"$PK" script -i "$T_TMP/inj.pk" >"$T_TMP/pk" 2>/dev/null
check pt_kcore:inject-read "$(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
	-z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
# bad kcore directories: perf's output, one line naming the file
for v in badcore:kcore nocore:kcore nomods:modules; do
	n=${v%%:*} f=${v#*:}
	"$PK" script -i "$D/$n" --itrace=be >/dev/null 2>"$T_TMP/pk.err"
	_br=$?
	check "pt_kcore:$n-said" "rc=$_br $(cat "$T_TMP/pk.err" | tr '\n' '|')" \
		$_br -eq 0 -a "$(grep -c "kcore_dir/$f:" "$T_TMP/pk.err")" -eq 1
done
same badcore-be "$D/badcore" script --itrace=be
same badcore-report "$D/badcore" report --stdio --itrace=i1i
# a VM's kernel (PIP NR=1) with --guestkallsyms: guest samples of the
# guest machine (":tid", [guest.kernel.kallsyms]), the VM entry split in
# two; without the guest's kcore its code cannot be read (perf's errors)
G=$D/guest
GN="--guestkallsyms $G/guest-nocore/kallsyms"
same guest-nocore-be "$G" script --itrace=be $GN
same guest-nocore-flags "$G" script --itrace=be -F +flags $GN
same guest-nocore-i1i "$G" script --itrace=i1ie -F +flags,+addr $GN
same guest-nocore-insn "$G" script --insn-trace $GN
# with the kcore: the walk through the guest's code, its VM exit (a FUP
# mid-block: the VMCS after the entry's PIP binds to the same vmresume)
# back to the host; guest samples' call depth is their guest thread's
# (no stack: 0) and their callchains resolve in the guest
GK="--guestkallsyms $G/guest/kallsyms"
same guest-be "$G" script --itrace=be $GK
same guest-flags "$G" script --itrace=be -F +flags $GK
same guest-i1ie "$G" script --itrace=i1ie -F +flags,+addr $GK
same guest-call-trace "$G" script --call-trace $GK
same guest-call-ret-trace "$G" script --call-ret-trace $GK
same guest-insn "$G" script --insn-trace $GK
same guest-i1ig "$G" script --itrace=i1ig $GK
same guest-bxwpe "$G" script --itrace=bxwpe -F +flags,+callindent $GK
# report --guestkallsyms: perf kvm --guest --host --guestkallsyms report's
# (guest samples of ":TID", level [g]; branch ends resolved in the
# sample's machine)
kvm_same() { # NAME ARGS...: perf kvm report's stdout, perfkit report's
	_kn=$1
	shift
	$PERF kvm --guest --host $GK report -i "$G" "$@" 2>/dev/null |
		sed '/^# (Tip: /d' >"$T_TMP/perf"
	"$PK" report -i "$G" $GK "$@" 2>"$T_TMP/pk.err" >"$T_TMP/pk.raw"
	_kr=$?
	sed '/^# (Tip: /d' "$T_TMP/pk.raw" >"$T_TMP/pk"
	check "pt_kcore:$_kn" "rc=$_kr $(head -1 "$T_TMP/pk.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
		$_kr -eq 0 -a "$(grep -c '\[g\]' "$T_TMP/perf")" -gt 0 \
		-a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
}
kvm_same guest-report-i1i --stdio --itrace=i1i
kvm_same guest-report-be --stdio --itrace=be
kvm_same guest-report-i1ig --stdio --itrace=i1ig
kvm_same guest-report-i1ig-callee --stdio --itrace=i1ig -G
kvm_same guest-report-pid --stdio --itrace=i1i -s comm,pid,dso,sym
kvm_same guest-report-bl --stdio --itrace=bl -b
# --guest-code (a KVM selftest: the VM runs its process's code at the
# same addresses): guest samples of perf's guest code thread
# "[guest/PID]", the guest's user space read through the process's maps;
# without the option perf drops the guest's samples (its errors stay)
C=$D/gcode
same gcode-be "$C" script --itrace=be -F +flags --guest-code
same gcode-i1ie "$C" script --itrace=i1ie -F +addr --guest-code
same gcode-call-trace "$C" script --call-trace --guest-code
same gcode-insn "$C" script --insn-trace --guest-code
same gcode-i1ig "$C" script --itrace=i1ig --guest-code
same gcode-none-be "$C" script --itrace=be
same gcode-none-insn "$C" script --insn-trace
gc_same() { # NAME ARGS...: perf kvm --guest-code report's, perfkit's
	_gn=$1
	shift
	$PERF kvm --guest-code --guest --host report -i "$C" "$@" 2>/dev/null |
		sed '/^# (Tip: /d' >"$T_TMP/perf"
	"$PK" report -i "$C" --guest-code "$@" 2>"$T_TMP/pk.err" >"$T_TMP/pk.raw"
	_gr=$?
	sed '/^# (Tip: /d' "$T_TMP/pk.raw" >"$T_TMP/pk"
	check "pt_kcore:$_gn" "rc=$_gr $(head -1 "$T_TMP/pk.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
		$_gr -eq 0 -a "$(grep -c 'guest/4343' "$T_TMP/perf")" -gt 0 \
		-a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
}
gc_same gcode-report-i1i --stdio --itrace=i1i
gc_same gcode-report-be --stdio --itrace=be
gc_same gcode-report-i1ig --stdio --itrace=i1ig
gc_same gcode-report-pid --stdio --itrace=i1i -s comm,pid,dso,sym
gc_same gcode-report-bl --stdio --itrace=bl -b
# the VM run by a second thread (vcpu0): its guest samples are still
# perf's guest code thread's ("[guest/PID]", the pid key's tid PID)
C=$D/gcvcpu
same gcvcpu-be "$C" script --itrace=be -F comm,pid,tid,ip,sym,addr,flags --guest-code
same gcvcpu-call-trace "$C" script --call-trace --guest-code
gc_same gcvcpu-report-pid --stdio --itrace=i1i -s comm,pid,dso,sym
gc_same gcvcpu-report-i1ig --stdio --itrace=i1ig
# a directory without data: one line, a failure
mkdir -p "$D/empty/kcore_dir"
"$PK" script -i "$D/empty" >/dev/null 2>"$T_TMP/pk.err"
_er=$?
check pt_kcore:no-data "rc=$_er $(tr '\n' '|' <"$T_TMP/pk.err")" \
	$_er -ne 0 -a "$(wc -l <"$T_TMP/pk.err")" -eq 1
t_exit
