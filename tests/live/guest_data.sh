# perf script's machine_pid and vcpu fields (-F +machine_pid,+vcpu and
# in field lists) against perf 6.1, on a file perf inject --guest-data
# made: a guest side band (perf record -a -e dummy --switch-events) put
# into a host recording of a process whose threads are named as QEMU's
# VCPU threads (vcpus.py). The injected ID_INDEX carries machine_pid and
# vcpu per guest id; perf prints "VM:%5d VCPU:%03d " for records of such
# ids and nothing for the host's. Also -D's ID_INDEX lines and a file
# without guest ids (nothing printed).
. tests/lib/sh.sh
T=$T_TMP
need_cmd guest_data perf "perf is not installed"
need_built guest_data "$PERFKIT"

perf record -q -o "$T/guest.data" --sample-identifier -a -e dummy \
	--switch-events -- sleep 0.1 >/dev/null 2>&1 &&
perf record -q -o "$T/host.data" --sample-identifier -e task-clock \
	-c 1000000 -- python3 tests/live/vcpus.py 0.1 >/dev/null 2>&1 || {
	skip guest_data "perf record -a cannot record here"; exit 0; }
VM=$(perf script -i "$T/host.data" --show-task-events 2>/dev/null |
	sed -n 's/.*PERF_RECORD_COMM: CPU 0\/KVM:\([0-9]*\)\/.*/\1/p' | head -1)
test -n "$VM" || { skip guest_data "no VCPU thread in the host file"; exit 0; }
perf inject -i "$T/host.data" -o "$T/inj.data" \
	--guest-data="$T/guest.data,$VM,0x0" >"$T/inj.err" 2>&1
check guest_data_injected "perf inject --guest-data failed: $(head -2 "$T/inj.err")" \
	-s "$T/inj.data"

# cmp NAME ARGS...: perf script and perfkit script alike
cmp_script() {
	_n=$1; shift
	perf script "$@" >"$T/$_n.p" 2>&1
	"$PERFKIT" script "$@" >"$T/$_n.k" 2>&1
	check "$_n" "$(diff "$T/$_n.p" "$T/$_n.k" | head -4 | cut -c1-160 | tr '\n' '|')" \
		-s "$T/$_n.p" -a "$(cksum <"$T/$_n.p")" = "$(cksum <"$T/$_n.k")"
}
I="-i $T/inj.data"
TE="--show-task-events --show-switch-events"
cmp_script guest_data_plus $I -F +machine_pid,+vcpu
cmp_script guest_data_plus_side $I -F +machine_pid,+vcpu $TE
check guest_data_has_vm "perf printed no VM: prefix" \
	"$(grep -c "^VM:$(printf %5d "$VM") VCPU:00[01] " "$T/guest_data_plus_side.p")" -gt 10
cmp_script guest_data_list_side $I -F machine_pid,vcpu,comm,tid $TE
cmp_script guest_data_pid_only $I -F +machine_pid $TE
cmp_script guest_data_vcpu_only $I -F +vcpu $TE
cmp_script guest_data_no_comm $I -F -comm,+vcpu,+machine_pid $TE
cmp_script guest_data_sw_type $I -F sw:+vcpu,+machine_pid $TE
cmp_script guest_data_without $I $TE
perf script -D $I 2>/dev/null | grep -A3 'PERF_RECORD_ID_INDEX' >"$T/d.p"
"$PERFKIT" script -D $I 2>/dev/null | grep -A3 'PERF_RECORD_ID_INDEX' >"$T/d.k"
check guest_data_dump_id_index "$(diff "$T/d.p" "$T/d.k" | head -4 | tr '\n' '|')" \
	"$(grep -c machine_pid "$T/d.p")" -gt 0 -a "$(cksum <"$T/d.p")" = "$(cksum <"$T/d.k")"
# no guest ids: the fields print nothing
cmp_script guest_data_host_only -i "$T/host.data" -F +machine_pid,+vcpu $TE
