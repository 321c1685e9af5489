# Sourced by the benchmarks: big_recording FILE MIN, with BUILD and PK set.
# Records cpu-clock at 20 kHz with -g on every CPU while the demo workload
# runs, doubling its scale until FILE holds MIN samples; sets n to the
# count. False (a "skipped" line printed) when it never gets there.
big_recording() {
	scale=30
	n=0
	while [ "$n" -lt "$2" ] && [ $scale -le 960 ]; do
		perf record -q -F 20000 -g -a -o "$1" -- "$BUILD/workloads/demo" \
			$scale >/dev/null 2>&1
		n=$("$PK" script -i "$1" -F tid -G 2>/dev/null | wc -l)
		scale=$((scale * 2))
	done
	[ "$n" -ge "$2" ] && return 0
	echo "could not record $2 samples (got $n): skipped"
	return 1
}
