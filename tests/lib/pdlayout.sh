# What perf record and perfkit record write beside the samples, compared
# (tests/lib/pdlayout.py's lines). Source after tests/lib/sh.sh with N
# (the test's name), SRC (the checkout) and PK (perfkit's path) set, in
# the test's directory.
#   pdl_rec NAME MODE OPTS... -- CMD...
#       both recorders with OPTS running CMD, MODE file or pipe (-o -),
#       into NAME.perf.data / NAME.pk.data, their layouts into NAME.*.lay;
#       ok when equal. With PDL_DEV set (a devices directory) perf runs in
#       a private mount namespace with it bound over
#       /sys/bus/event_source/devices and perfkit gets PERFKIT_SYSFS=
#       $PDL_SYS; with PDL_NOBID set BUILD_ID's presence is left out (it
#       follows whether any sample hit a DSO); with PDL_ORDER set the
#       order of every record ahead of FINISHED_INIT is compared too.
#   pdl_fake_dev DIR  DIR/dev: links to every PMU of this machine, and
#       DIR/sys/bus/event_source/devices pointing at it (PDL_DEV, PDL_SYS
#       set); the test adds its own PMUs to DIR/dev. Fails (returns 1)
#       without root or unshare, or where a bind mount is refused.
pdl_lay() { t_python "$SRC/tests/lib/pdlayout.py" ${PDL_ORDER:+--order} "$1"; }
pdl_one() {	# pdl_one perf|pk NAME MODE OPTS...
	_pt=$1 _pn=$2 _pm=$3; shift 3
	_po=$_pn.$_pt.data
	[ "$_pm" = pipe ] && _po=-
	if [ $_pt = pk ]; then
		if [ -n "$PDL_DEV" ]; then
			PERFKIT_SYSFS=$PDL_SYS "$PK" record -o $_po "$@"
		else
			"$PK" record -o $_po "$@"
		fi
	elif [ -n "$PDL_DEV" ]; then
		unshare -m sh -c 'mount --bind "$0" /sys/bus/event_source/devices &&
			exec perf record "$@"' "$PDL_DEV" -o $_po "$@"
	else
		perf record -o $_po "$@"
	fi
}
pdl_rec() {
	_n=$1 _m=$2; shift 2
	for _t in perf pk; do
		if [ "$_m" = pipe ]; then
			pdl_one $_t $_n pipe "$@" 2> $_n.$_t.err > $_n.$_t.data
		else
			pdl_one $_t $_n file "$@" > /dev/null 2> $_n.$_t.err
		fi || { fail "$N:$_n:$_t" "$(tail -2 $_n.$_t.err | tr '\n' '|')"; return 1; }
		pdl_lay $_n.$_t.data > $_n.$_t.lay 2>&1
		[ -z "$PDL_NOBID" ] || sed -i '/^feat 2 /d' $_n.$_t.lay
	done
	if cmp -s $_n.perf.lay $_n.pk.lay && [ -s $_n.perf.lay ]; then
		ok "$N:$_n"
	else
		fail "$N:$_n" "$(diff $_n.perf.lay $_n.pk.lay | grep '^[<>]' | cut -c1-120 | head -6 | tr '\n' '|')"
		return 1
	fi
}
pdl_fake_dev() {
	[ "$(id -u)" -eq 0 ] && command -v unshare > /dev/null || return 1
	mkdir -p "$1/dev" "$1/sys/bus/event_source" || return 1
	for _p in /sys/bus/event_source/devices/*; do
		ln -s "$(readlink -f "$_p")" "$1/dev/${_p##*/}"
	done
	ln -s "$1/dev" "$1/sys/bus/event_source/devices"
	unshare -m sh -c 'mount --bind "$0" /sys/bus/event_source/devices' \
		"$1/dev" 2> /dev/null || return 1
	PDL_DEV=$1/dev PDL_SYS=$1/sys
}
