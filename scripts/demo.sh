#!/bin/sh
# make demo: perfkit's main jobs on the bundled workload.
BUILD=${1:-build}
PK=$BUILD/perfkit
echo "== perfkit stat $BUILD/workloads/demo"
$PK stat -- $BUILD/workloads/demo
echo "== perfkit stat -e 'syscalls:sys_enter_getppid' -- $BUILD/workloads/getppid 100000"
$PK stat -e syscalls:sys_enter_getppid,task-clock,page-faults -- $BUILD/workloads/getppid 100000
