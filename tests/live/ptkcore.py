#!/usr/bin/env python3
"""ptkcore: a perf record --kcore directory whose Intel PT runs through
kernel code that only its kcore copy holds.

    ptkcore.py DIR [--build-id HEX] [--no-kcore] [--bad-kcore]
               [--no-modules] [--bad-text] [--module] [--guest]
               [--guest-code [--vcpu]]

Writes DIR/data (a perf.data: intel_pt//k per thread, timeless, as
perf record --per-thread -e intel_pt//k writes it) and DIR/kcore_dir/
kcore (an ELF core: one PT_LOAD per code region at its kernel virtual
address, plus a data segment without PF_X), kallsyms (the functions
there, one module symbol) and modules. The trace: enabled at kfunc_a,
a call to kfunc_b and its compressed return, a taken jne, a direct jmp
into the module region (mod_fn), an indirect jmp back to kfunc_local,
whose ret disables the trace.

--build-id: the kernel's build id in the file's build-id table (default
none). --no-kcore / --no-modules leave that file out, --bad-kcore writes
a kcore that is not an ELF file, --bad-text gives _text another address
in kallsyms than the recorded kernel map's pgoff (perf then does not use
the kcore). --module adds a module MMAP (pkmod at its modules address).
--guest: the trace enters a virtual machine (perf kvm --guest --host
record --kcore -e intel_pt//k --per-thread of a VM's thread): vmx_enter's
vmresume goes (PIP NR=1, VMCS) to the guest kernel's gfunc_a, which calls
gfunc_b and returns, and a VM exit there (FUP, PIP NR=0) comes back to
vmx_exit, whose ret disables the trace. DIR/guest holds the guest's
kallsyms, modules and kcore (as perf buildid-cache --kcore leaves them:
--guestkallsyms DIR/guest/kallsyms), DIR/guest-nocore its kallsyms only.
The guest kernel sits at the host's addresses with other code.
--guest-code: a KVM selftest's layout (perf script --guest-code): the
process kwork maps DIR/kvmtest (an ELF executable whose .text holds the
guest's code, gfunc_a and gfunc_b at user addresses) and its VM runs
that code at the same addresses (PIP NR=1, then the guest's user
space); the trace is intel_pt// (user and kernel), no guest kernel map.
--vcpu (with --guest-code): the VM runs in a second thread of kwork
(vcpu0, tid PID+1: FORK and COMM), whose trace it is.
Standard library only.
"""
import os
import struct
import sys

KTEXT = 0xffffffff81000000   # _text: the kernel map's pgoff
MOD = 0xffffffffc0000000     # the module region
DATA = 0xffffffff82000000    # a data segment (not code)
PID = 4343

# kfunc_a at KTEXT+0x10 .. kfunc_local at KTEXT+0x50
KCODE = bytearray(b"\xcc" * 0x100)
KCODE[0x00:0x02] = b"\x90\xc3"                       # startup_64: nop; ret
KCODE[0x10:0x11] = b"\x55"                           # push %rbp
KCODE[0x11:0x16] = b"\xe8" + struct.pack("<i", 0x30 - 0x16)  # call kfunc_b
KCODE[0x16:0x18] = b"\x85\xc0"                       # test %eax,%eax
KCODE[0x18:0x1a] = b"\x75\x02"                       # jne 0x1c
KCODE[0x1a:0x1c] = b"\x90\x90"                       # nop; nop
KCODE[0x1c:0x1d] = b"\x5d"                           # pop %rbp
KCODE[0x1d:0x22] = b"\xe9" + struct.pack(
    "<i", (MOD - (KTEXT + 0x22)) & 0xffffffff)       # jmp mod_fn
KCODE[0x30:0x35] = b"\x31\xc0\xff\xc0\xc3"           # kfunc_b: xor; inc; ret
KCODE[0x50:0x52] = b"\x90\xc3"                       # kfunc_local: nop; ret
KCODE[0x60:0x64] = b"\x90\x0f\x01\xc3"           # vmx_enter: nop; vmresume
KCODE[0x70:0x72] = b"\x90\xc3"                       # vmx_exit: nop; ret
# the guest kernel: gfunc_a at KTEXT+0x20, gfunc_b at KTEXT+0x40
GCODE = bytearray(b"\xcc" * 0x100)
GCODE[0x00:0x02] = b"\x90\xc3"                       # gstart: nop; ret
GCODE[0x20:0x21] = b"\x55"                           # push %rbp
GCODE[0x21:0x26] = b"\xe8" + struct.pack("<i", 0x40 - 0x26)  # call gfunc_b
GCODE[0x26:0x28] = b"\x85\xc0"                       # test %eax,%eax
GCODE[0x28:0x2a] = b"\x74\x02"                       # je 0x2c (not taken)
GCODE[0x2a:0x2c] = b"\x90\x5d"                       # nop; pop %rbp
GCODE[0x2c:0x2f] = b"\x90\xeb\xfd"                   # nop (the exit's FUP); jmp .-1
GCODE[0x40:0x45] = b"\xff\xc0\x90\x90\xc3"           # gfunc_b: inc; nop; nop; ret
GKALLSYMS = [
    (KTEXT, "T", "_text"), (KTEXT, "T", "_stext"),
    (KTEXT, "T", "gstart"), (KTEXT + 0x20, "T", "gfunc_a"),
    (KTEXT + 0x40, "t", "gfunc_b"), (KTEXT + 0x100, "T", "_etext"),
]
MCODE = bytearray(b"\xcc" * 0x40)
MCODE[0x00:0x03] = b"\x90\xff\xe0"                   # mod_fn: nop; jmp *%rax

KALLSYMS = [
    (KTEXT, "T", "_text"), (KTEXT, "T", "_stext"),
    (KTEXT, "T", "startup_64"), (KTEXT + 0x10, "T", "kfunc_a"),
    (KTEXT + 0x30, "T", "kfunc_b"), (KTEXT + 0x50, "t", "kfunc_local"),
    (KTEXT + 0x100, "T", "_etext"), (DATA, "D", "kdata_obj"),
    (MOD, "t", "mod_fn\t[pkmod]"),
]


def align(n, a):
    return (n + a - 1) // a * a


def tip(hdr, ip):
    """TIP-class packet, IP compression 3 (48 bits sign-extended)."""
    return bytes([(3 << 5) | hdr]) + struct.pack("<Q", ip)[:6]


def psb_head():
    b = b"\x02\x82" * 8                    # PSB
    b += b"\x02\x03\x0a\x00"                # CBR 10: the PSB+'s
    b += b"\x02\x23"                        # PSBEND
    b += b"\x99\x01"                        # MODE.EXEC: 64-bit
    return b


def trace():
    b = psb_head()
    b += tip(0x11, KTEXT + 0x10)            # TIP.PGE kfunc_a
    b += bytes([1 << 3 | 0b11 << 1])        # TNT: ret taken, jne taken
    b += tip(0x0d, KTEXT + 0x50)            # TIP: jmp *%rax
    b += b"\x01"                            # TIP.PGD (no IP): at the ret
    return b + b"\0" * (-len(b) % 8)


def guest_trace():
    b = psb_head()
    b += tip(0x11, KTEXT + 0x60)            # TIP.PGE vmx_enter
    b += b"\x02\x43" + struct.pack("<Q", 0x1000 << 1 | 1)[:6]  # PIP NR=1
    b += b"\x02\xc8" + struct.pack("<Q", 0x12345)[:5]         # VMCS
    b += tip(0x0d, KTEXT + 0x20)            # TIP: the VM entry, gfunc_a
    b += bytes([1 << 3 | 0b10 << 1])        # TNT: ret taken, je not
    b += tip(0x1d, KTEXT + 0x2c)            # FUP: the VM exit in gfunc_a
    b += b"\x02\x43" + struct.pack("<Q", 0x2000 << 1)[:6]     # PIP NR=0
    b += tip(0x0d, KTEXT + 0x70)            # TIP: vmx_exit
    b += b"\x01"                            # TIP.PGD (no IP): at the ret
    return b + b"\0" * (-len(b) % 8)


GCBASE = 0x400000                    # kvmtest's load address (ET_EXEC)
GCTEXT = GCBASE + 0x1000             # its .text: GCODE


def guest_code_trace():
    """guest_trace() with the guest's code at kvmtest's addresses."""
    b = psb_head()
    b += tip(0x11, KTEXT + 0x60)            # TIP.PGE vmx_enter
    b += b"\x02\x43" + struct.pack("<Q", 0x1000 << 1 | 1)[:6]  # PIP NR=1
    b += b"\x02\xc8" + struct.pack("<Q", 0x12345)[:5]         # VMCS
    b += tip(0x0d, GCTEXT + 0x20)           # TIP: the VM entry, gfunc_a
    b += bytes([1 << 3 | 0b10 << 1])        # TNT: ret taken, je not
    b += tip(0x1d, GCTEXT + 0x2c)           # FUP: the VM exit in gfunc_a
    b += b"\x02\x43" + struct.pack("<Q", 0x2000 << 1)[:6]     # PIP NR=0
    b += tip(0x0d, KTEXT + 0x70)            # TIP: vmx_exit
    b += b"\x01"                            # TIP.PGD (no IP): at the ret
    return b + b"\0" * (-len(b) % 8)


def kvmtest_elf():
    """An ET_EXEC file: one PT_LOAD at GCBASE, .text (GCODE) at GCTEXT,
    a .symtab with gstart, gfunc_a and gfunc_b."""
    text = bytes(GCODE)
    strtab = b"\0gstart\0gfunc_a\0gfunc_b\0"
    syms = struct.pack("<IBBHQQ", 0, 0, 0, 0, 0, 0)
    for name, off, size in (("gstart", 0, 2), ("gfunc_a", 0x20, 0x10),
                            ("gfunc_b", 0x40, 5)):
        syms += struct.pack("<IBBHQQ", strtab.index(name.encode() + b"\0"),
                            0x12, 0, 1, GCTEXT + off, size)
    shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
    body = bytearray(b"\0" * 0x1000) + text
    sym_off = len(body)
    body += syms
    str_off = len(body)
    body += strtab
    shs_off = len(body)
    body += shstr
    body += b"\0" * (-len(body) % 8)
    sh_off = len(body)

    def sh(name, typ, flags, addr, off, size, link=0, info=0, al=1, es=0):
        return struct.pack("<IIQQQQIIQQ", shstr.index(name) if name else 0,
                           typ, flags, addr, off, size, link, info, al, es)
    shdrs = sh(b"", 0, 0, 0, 0, 0)
    shdrs += sh(b".text\0", 1, 6, GCTEXT, 0x1000, len(text), al=16)
    shdrs += sh(b".symtab\0", 2, 0, 0, sym_off, len(syms), 3, 1, 8, 24)
    shdrs += sh(b".strtab\0", 3, 0, 0, str_off, len(strtab))
    shdrs += sh(b".shstrtab\0", 3, 0, 0, shs_off, len(shstr))
    body += shdrs
    eh = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    eh += struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, GCTEXT + 0x20, 64, sh_off,
                      0, 64, 56, 1, 64, 5, 4)
    ph = struct.pack("<IIQQQQQQ", 1, 5, 0, GCBASE, GCBASE,
                     0x1000 + len(text), 0x1000 + len(text), 0x1000)
    body[0:len(eh) + len(ph)] = eh + ph
    return bytes(body)


def event(typ, misc, body):
    assert (8 + len(body)) % 8 == 0
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body


def name_bytes(s, a=8):
    b = s.encode() + b"\0"
    return b.ljust(align(len(b), a), b"\0")


def perf_string(s):
    b = s.encode() + b"\0"
    n = align(len(b), 64)
    return struct.pack("<I", n) + b.ljust(n, b"\0")


def attr(typ, config, sample_type, flags):
    b = struct.pack("<IIQQQQQ", typ, 128, config, 1, sample_type,
                    4 | 16, flags)
    return b + b"\0" * (128 - len(b))


def perf_data(build_id, module, guest=False, gcode=None, vcpu=False):
    st = 1 | 2 | (1 << 16)                  # IP, TID, IDENTIFIER
    # disabled, exclude_user, exclude_hv, enable_on_exec, sample_id_all,
    # exclude_guest; the dummy: mmap, comm, task, mmap2, comm_exec too
    ptf = 1 | 1 << 4 | 1 << 6 | 1 << 12 | 1 << 18 | 1 << 20
    dmf = ptf | 1 << 8 | 1 << 9 | 1 << 13 | 1 << 23 | 1 << 24
    if gcode:
        ptf &= ~(1 << 4)                    # intel_pt//: user space too
    attrs = [("intel_pt//" if gcode else "intel_pt//k",
              attr(8, 0x2401 | 1 << 24, st, ptf), 17),
             ("dummy:k", attr(1, 9, st, dmf), 18)]

    def sid(i):
        return struct.pack("<IIQ", PID, PID, i)
    out = bytearray()
    priv = [8, 31, 1 << 31, 0, 1, 1 << 10, 1 << 11, 0, 0, 0, 1 << 9,
            0xf << 14, 2, 1, 2, 10, 0]
    out += event(70, 0, struct.pack("<II", 1, 0) +
                 struct.pack("<17Q", *priv))
    out += event(3, 0, struct.pack("<II", PID, PID) + name_bytes("perf-exec")
                 + b"\0" * 16)
    out += event(12, 0, struct.pack("<II", PID, PID) + sid(17))
    out += event(3, 1 << 13, struct.pack("<II", PID, PID) +
                 name_bytes("kwork") + sid(18))
    # the kernel map as perf record synthesizes it: pid -1, pgoff _text
    out += event(1, 1, struct.pack("<IIQQQ", 0xffffffff, 0, KTEXT,
                                   0x1000000, KTEXT) +
                 name_bytes("[kernel.kallsyms]_text") + b"\0" * 16)
    if guest:
        # perf kvm record's guest kernel map: pid 0 (the default guest)
        out += event(1, 4, struct.pack("<IIQQQ", 0, 0, KTEXT, 0x1000000,
                                       KTEXT) +
                     name_bytes("[guest.kernel.kallsyms]_text") +
                     b"\0" * 16)
    if module:
        out += event(1, 1, struct.pack("<IIQQQ", 0xffffffff, 0, MOD,
                                       0x1000, 0) +
                     name_bytes("/lib/modules/6.1.0/pkmod.ko") + b"\0" * 16)
    if gcode:
        # kwork maps kvmtest (MMAP2: maj, min, ino, generation, prot, flags)
        out += event(10, 2, struct.pack("<IIQQQIIQQII", PID, PID, GCBASE,
                                        0x2000, 0, 0, 0, 1, 0, 5, 2) +
                     name_bytes(gcode) + sid(18))
    tid = PID + 1 if vcpu else PID
    if vcpu:
        out += event(7, 0, struct.pack("<IIIIQ", PID, PID, tid, PID, 0) +
                     sid(18))
        out += event(3, 0, struct.pack("<II", PID, tid) +
                     name_bytes("vcpu0") + sid(18))
    pt = guest_code_trace() if gcode else guest_trace() if guest else trace()
    auxpos = len(out)
    out += event(71, 0, struct.pack("<QQQIIiI", len(pt), 0, 0, 0, tid, -1, 0))
    out += pt
    if vcpu:
        out += event(4, 0, struct.pack("<IIIIQ", PID, PID, tid, PID, 0) +
                     sid(18))
    out += event(4, 0, struct.pack("<IIIIQ", PID, PID, PID, PID, 0) + sid(18))
    out += event(68, 0, b"")

    ids = b"".join(struct.pack("<Q", i) for _n, _a, i in attrs)
    attrs_off = 104 + len(ids)
    ablob = b"".join(a + struct.pack("<QQ", 104 + 8 * k, 8)
                     for k, (_n, a, _i) in enumerate(attrs))
    data_off = attrs_off + len(ablob)
    feats = {}
    if build_id:
        bid = bytes.fromhex(build_id)
        body = struct.pack("<i", -1) + bid.ljust(20, b"\0") + \
            struct.pack("<BBH", len(bid), 0, 0) + \
            name_bytes("[kernel.kallsyms]", 64)
        feats[2] = struct.pack("<IHH", 0, 1 | 1 << 15, 8 + len(body)) + body
    feats[3] = perf_string("ptkcore")
    feats[4] = perf_string("6.1.0-ptkcore")
    feats[5] = perf_string("6.1.187")
    feats[6] = perf_string("x86_64")
    feats[7] = struct.pack("<II", 1, 1)
    feats[9] = perf_string("GenuineIntel,6,85,4")
    cmd = ["/usr/bin/perf", "record", "--kcore", "-e",
           "intel_pt//" if gcode else "intel_pt//k",
           "--per-thread", "-o", "DIR", "--", "kwork"]
    feats[11] = struct.pack("<I", len(cmd)) + b"".join(map(perf_string, cmd))
    body = struct.pack("<II", len(attrs), 128)
    for n, a, i in attrs:
        body += a + struct.pack("<I", 1) + perf_string(n) + \
            struct.pack("<Q", i)
    feats[12] = body
    feats[16] = struct.pack("<I", 2) + struct.pack("<I", 1) + \
        perf_string("software") + struct.pack("<I", 8) + \
        perf_string("intel_pt")
    feats[18] = struct.pack("<QQQ", 1, data_off + auxpos, 0x30)
    feat_off = data_off + len(out)
    fsec, fdata = bytearray(), bytearray()
    pos = feat_off + 16 * len(feats)
    for k in sorted(feats):
        fsec += struct.pack("<QQ", pos + len(fdata), len(feats[k]))
        fdata += feats[k]
    bitmap = 0
    for k in feats:
        bitmap |= 1 << k
    hdr = struct.pack("<8sQQQQQQQQ", b"PERFILE2", 104, 144, attrs_off,
                      len(ablob), data_off, len(out), 0, 0)
    hdr += struct.pack("<QQQQ", bitmap, 0, 0, 0)
    return hdr + ids + ablob + bytes(out) + bytes(fsec) + bytes(fdata)


def kcore(segs=None):
    """ELF64 core: PT_LOADs for the kernel text, the module and data."""
    segs = segs or [(KTEXT, bytes(KCODE), 5), (DATA, b"\x11" * 0x40, 4),
                    (MOD, bytes(MCODE), 5)]
    phoff, phnum = 64, len(segs)
    off = align(phoff + 56 * phnum, 4096)
    ph, body = b"", b""
    for vaddr, data, flags in segs:
        ph += struct.pack("<IIQQQQQQ", 1, flags, off + len(body), vaddr, 0,
                          len(data), len(data), 4096)
        body += data + b"\0" * (-len(data) % 4096)
    eh = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    eh += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, phoff, 0, 0, 64, 56,
                      phnum, 64, 0, 0)
    return eh + ph + b"\0" * (off - 64 - len(ph)) + body


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    d = args[0]
    bid = None
    if "--build-id" in args:
        bid = args[args.index("--build-id") + 1]
    kd = os.path.join(d, "kcore_dir")
    os.makedirs(kd, exist_ok=True)
    with open(os.path.join(d, "data"), "wb") as f:
        gcode = None
        if "--guest-code" in args:
            gcode = os.path.join(os.path.abspath(d), "kvmtest")
            with open(gcode, "wb") as g:
                g.write(kvmtest_elf())
        f.write(perf_data(bid, "--module" in args, "--guest" in args,
                          gcode, "--vcpu" in args))
    if "--guest" in args:
        for sub, core in (("guest", True), ("guest-nocore", False)):
            gd = os.path.join(d, sub)
            os.makedirs(gd, exist_ok=True)
            with open(os.path.join(gd, "kallsyms"), "w") as f:
                for a, t, n in GKALLSYMS:
                    f.write("%016x %s %s\n" % (a, t, n))
            if core:
                with open(os.path.join(gd, "modules"), "w") as f:
                    pass
                with open(os.path.join(gd, "kcore"), "wb") as f:
                    f.write(kcore([(KTEXT, bytes(GCODE), 5)]))
    if "--no-kcore" not in args:
        with open(os.path.join(kd, "kcore"), "wb") as f:
            f.write(b"not an ELF file\n" if "--bad-kcore" in args
                    else kcore())
    syms = KALLSYMS
    if "--guest" in args or "--guest-code" in args:
        syms = syms + [(KTEXT + 0x60, "t", "vmx_enter"),
                       (KTEXT + 0x70, "t", "vmx_exit")]
    if "--bad-text" in args:
        syms = [(a + 0x1000 if n == "_text" else a, t, n)
                for a, t, n in syms]
    with open(os.path.join(kd, "kallsyms"), "w") as f:
        for a, t, n in sorted(syms, key=lambda s: s[0]):
            f.write("%016x %s %s\n" % (a, t, n))
    if "--no-modules" not in args:
        with open(os.path.join(kd, "modules"), "w") as f:
            f.write("pkmod 4096 0 - Live 0x%016x\n" % MOD)


if __name__ == "__main__":
    main()
