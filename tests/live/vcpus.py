# A stand-in for a QEMU process: two threads named as QEMU names its
# VCPU threads ("CPU N/KVM"), alive for argv[1] seconds, so perf inject
# --guest-data finds the VM's VCPUs in a host recording of it.
import ctypes
import sys
import threading
import time

libc = ctypes.CDLL(None)


def vcpu(n):
    libc.prctl(15, ("CPU %d/KVM" % n).encode(), 0, 0, 0)  # PR_SET_NAME
    time.sleep(float(sys.argv[1]))


threads = [threading.Thread(target=vcpu, args=(i,)) for i in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
