#!/usr/bin/env python3
"""ptsynth: a ptgen run's Intel PT with packets added that do not change
its flow (PTWRITE, power events, MODE.TSX, CBR, ...), wrapped into a
perf.data by ../shared/tools/ptperf/mkperf, with the intel_pt event's
config bits perf looks at for the synthesized events set.

    ptsynth.py PREFIX OUT.data [--time] [--config BITS]
               [--at N:ITEM,ITEM...]...

PREFIX is a ptgen output prefix (PREFIX.pt, .img.addr, .meta, as
make-refs.sh leaves them). Each --at puts its items just after the N-th
TIP packet that carries an IP (from 0), where the flow stands at the
TIP's target; "fup" is a FUP of that target (6-byte IP). Items:
  ptw:V / ptw8:V      PTWRITE, 4 / 8 payload bytes, no IP
  ptwip:V / ptwip8:V  PTWRITE with IP (give a fup after it)
  mwait:HINTS:EXT     MWAIT
  pwre:HW:CSTATE:SUB  PWRE
  pwrx:LAST:DEEPEST:WAKE  PWRX
  exstop / exstopip   EXSTOP without / with IP (give a fup after it)
  tsx:INTX:ABORT      MODE.TSX
  cbr:RATIO           CBR
  cyc:N               CYC of N cycles
  mtc:CTC             MTC with its 8-bit CTC payload
  fup                 FUP of the TIP's target
  fup+K               FUP of the target plus K bytes (an instruction
                      further on, reached without a branch)
  tip / tip+K         TIP to the target (plus K bytes): where a TSX
                      abort's FUP goes (its handler)
  pgd / pgd+K / pgd0  TIP.PGD with that IP / with none
  pge / pge+K         TIP.PGE to the target (plus K bytes)
  raw:HEX             bytes as given
  psb / psbend        PSB / PSBEND (a PSB+ between them: mode64, fup...)
  mode64              MODE.Exec, 64-bit, IF 0
  bbp:TYPE / bbp4:TYPE  BBP (block begin) of 8-byte / 4-byte items (SZ)
  bip:ID:V            BIP (block item) ID with value V, the size of the
                      BBP before it in the same --at (mkperf cannot walk
                      BIPs: they are written into the file after it)
  bep / bepip         BEP (block end) without / with IP (give a fup)
--config BITS: or-ed into the intel_pt attr's config (e.g. 0x10 pwr_evt,
0x1000 ptw, 0x20 fup_on_ptw, 0x80000000 event_trace).
--at pgdN:ITEMS puts the items after the N-th TIP.PGD (tracing off),
--at psbN:ITEMS inside the N-th PSB+ (just before its PSBEND), --at
tscN:ITEMS after the N-th TSC packet of the stream (tsc*: after each).
Timing and virtualization items (for VM time correlation; the host's
TSC runs at twice the CTC, perf's TSC:CTC 2/1 from mkperf, MTC shift
from --config's mtc_period bits 14..17):
  tsc+K[:OFF]         TSC of host time T = the last TSC before it plus K
                      (the stream's or an item's), written as T + OFF
                      (a guest's TSC: VMX adds its TSC Offset)
  tma / tma:CTC:FC    TMA of the last TSC's host time (CTC = T/2, FC =
                      T%2: what the hardware gives), or as given
  mtc+K               MTC of host time (last TSC) + K
  pip:CR3:NR / vmcs:BASE / psb / psbend / ovf / stop
--tsc-off N:OFF: the N-th TSC packet of the stream (from 0, items not
counted) is written as its value + OFF (after mkperf walked the host
values: the AUX times and AUXTRACE references stay the host's).
--pebs ST:REGS[:PERIOD][:NAME]: a PEBS event after the intel_pt one, as perf
record writes '{intel_pt//,cycles/aux-output/ppp}' with -c PERIOD
(default 10000): cycles:u, precise_ip 3, aux_output, sample_type ST or-ed
with IP, TID, IDENTIFIER (and TIME with --time), sample_regs_intr REGS,
id 19 (not in the ID_INDEX), named NAME (default cycles/aux-output/ppp)
in EVENT_DESC.
--cap-event-trace V: AUXTRACE_INFO gets the u64 perf reads after the
filter string (its cap_event_trace), the records and the AUXTRACE index
after it moved.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

IP_BYTES = {0: 0, 1: 2, 2: 4, 3: 6, 4: 6, 6: 8}


def plen(b, i):
    """Length of the packet at b[i] (the packets ptgen writes and these
    items), 0 if unknown."""
    c = b[i]
    if c == 0x00:
        return 1
    if c == 0x02:
        c2 = b[i + 1]
        if c2 == 0x82:
            return 16
        if c2 & 0x1f == 0x12:
            return 2 + (8 if c2 & 0x20 else 4)
        return {0x23: 2, 0x03: 4, 0xa3: 8, 0xf3: 2, 0x43: 8, 0x73: 7,
                0xc8: 7, 0x83: 2, 0xc3: 11, 0x62: 2, 0xe2: 2, 0xc2: 10,
                0x22: 4, 0xa2: 7, 0x63: 3, 0x33: 2, 0xb3: 2, 0x13: 4,
                0x53: 11}.get(c2, 0)
    if c == 0x19:
        return 8
    if c in (0x59, 0x99):
        return 2
    if c & 0x1f in (0x01, 0x0d, 0x11, 0x1d):
        n = IP_BYTES.get(c >> 5)
        return 0 if n is None else 1 + n
    if c & 3 == 3:
        n = 1
        more = c & 4
        while more:
            more = b[i + n] & 1
            n += 1
        return n
    if c & 1 == 0:
        return 1
    return 0


def new_ip(last, c, b):
    ipc = c >> 5
    v = int.from_bytes(b, "little")
    if ipc == 1:
        return (last & ~0xffff) | v
    if ipc == 2:
        return (last & ~0xffffffff) | v
    if ipc == 3:
        return v - (1 << 48) if v >> 47 else v
    if ipc == 4:
        return (last & ~0xffffffffffff) | v
    if ipc == 6:
        return v
    return last


def cyc_bytes(n):
    """A CYC packet of N cycles (5 bits in the header, 7 a byte after)."""
    out = [((n & 0x1f) << 3) | 3]
    n >>= 5
    if n:
        out[0] |= 4
    while n:
        out.append(((n & 0x7f) << 1) | (1 if n >> 7 else 0))
        n >>= 7
    return bytes(out)


# the IP packets an item may name, by their header (no IP: ipc 0)
IP_PACKETS = {"fup": 0x1d, "tip": 0x0d, "pgd": 0x01, "pge": 0x11}


SEVEN = (1 << 56) - 1


def tma_bytes(ctc, fc):
    return bytes([0x02, 0x73, ctc & 0xff, (ctc >> 8) & 0xff, 0,
                  fc & 0xff, (fc >> 8) & 1])


def vm_item(k, f, ctx):
    """The bytes of a timing/virtualization item, None if K is none."""
    host = ctx.get("host", 0)
    if k.startswith("tsc+"):
        t = host + int(k[4:], 0)
        ctx["host"] = t
        if len(f) > 1:  # the guest's value, written after mkperf
            ctx["guest"] = ((t + int(f[1], 0)) & SEVEN).to_bytes(7, "little")
        return bytes([0x19]) + (t & SEVEN).to_bytes(7, "little")
    if k == "tsc":
        t = int(f[1], 0)
        ctx["host"] = t
        return bytes([0x19]) + (t & SEVEN).to_bytes(7, "little")
    if k == "tma":
        if len(f) > 1:
            return tma_bytes(int(f[1], 0), int(f[2], 0))
        return tma_bytes((host >> 1) & 0xffff, host & 1)
    if k.startswith("mtc+"):
        ctc = (host + int(k[4:], 0)) >> 1
        return bytes([0x59, (ctc >> ctx.get("mtc_shift", 3)) & 0xff])
    if k == "pip":
        v = ((int(f[1], 0) >> 5) << 1) | (int(f[2], 0) & 1)
        return bytes([0x02, 0x43]) + v.to_bytes(6, "little")
    if k == "vmcs":
        return bytes([0x02, 0xc8]) + (int(f[1], 0) >> 12).to_bytes(5,
                                                                    "little")
    return {"psb": bytes([0x02, 0x82] * 8), "psbend": bytes([0x02, 0x23]),
            "ovf": bytes([0x02, 0xf3]), "stop": bytes([0x02, 0x83])}.get(k)


def item_bytes(it, target, ctx):
    """The bytes of item IT (TARGET: the TIP's); CTX carries the BIP size
    of the last BBP and the host time of the last TSC."""
    f = it.split(":")
    k = f[0]
    v = vm_item(k, f, ctx)
    if v is not None:
        return v
    a = [] if k == "raw" or k[:3] in IP_PACKETS else \
        [int(x, 0) for x in f[1:]]
    if k in ("ptw", "ptw8", "ptwip", "ptwip8"):
        eight = k.endswith("8")
        b1 = 0x12 | (0x20 if eight else 0) | (0x80 if "ip" in k else 0)
        return bytes([0x02, b1]) + a[0].to_bytes(8 if eight else 4, "little")
    if k == "mwait":
        return bytes([0x02, 0xc2]) + struct.pack("<II", a[0], a[1])
    if k == "pwre":
        return bytes([0x02, 0x22, 0x80 if a[0] else 0,
                      (a[1] << 4) | a[2]])
    if k == "pwrx":
        return bytes([0x02, 0xa2, (a[0] << 4) | a[1], a[2], 0, 0, 0])
    if k == "exstop":
        return bytes([0x02, 0x62])
    if k == "exstopip":
        return bytes([0x02, 0xe2])
    if k == "tsx":
        return bytes([0x99, 0x20 | a[0] | (a[1] << 1)])
    if k == "cbr":
        return bytes([0x02, 0x03, a[0], 0])
    if k == "cyc":
        return cyc_bytes(a[0])
    if k == "mtc":
        return bytes([0x59, a[0] & 0xff])
    if k[:3] in IP_PACKETS:
        if k[3:] == "0":
            return bytes([IP_PACKETS[k[:3]]])
        ip = target + (int(k[4:], 0) if k[3:4] == "+" else 0)
        return bytes([IP_PACKETS[k[:3]] | 0x60]) + \
            (ip & 0xffffffffffff).to_bytes(6, "little")
    if k == "raw":
        return bytes.fromhex(f[1])
    if k == "mode64":
        return bytes([0x99, 0x01])
    if k in ("bbp", "bbp4"):
        ctx["bip"] = 4 if k == "bbp4" else 8
        return bytes([0x02, 0x63, (0x80 if k == "bbp4" else 0) |
                      (a[0] & 0x1f)])
    if k == "bip":
        n = ctx.get("bip", 8)
        return bytes([(a[0] & 0x1f) << 3 | 4]) + \
            (a[1] & ((1 << 8 * n) - 1)).to_bytes(n, "little")
    if k in ("bep", "bepip"):
        ctx.pop("bip", None)
        return bytes([0x02, 0xb3 if k == "bepip" else 0x33])
    sys.exit("ptsynth: unknown item " + it)


def add_items(out, items, target, patches, ctx=None):
    """Appends ITEMS to OUT; BIPs as PADs of their size, their bytes in
    PATCHES (stream offset, bytes) to write after mkperf walked it; CTX
    (kept from call to call for the timing items) as item_bytes'."""
    ctx = {} if ctx is None else ctx
    for it in items:
        b = item_bytes(it, target, ctx)
        if it.startswith("bip:"):
            patches.append((len(out), b))
            b = bytes(len(b))
        if "guest" in ctx:
            patches.append((len(out) + 1, ctx.pop("guest")))
        out += b


def insert(pt, ats, patches, tsc_off=None, mtc_shift=3):
    out = bytearray()
    i, last, ntip, npgd, npsb, ntsc = 0, 0, 0, 0, 0, 0
    tctx = {"mtc_shift": mtc_shift}   # the timing items' context
    tsc_off = tsc_off or {}
    while i < len(pt):
        n = plen(pt, i)
        if not n:
            sys.exit("ptsynth: unknown packet at %d" % i)
        c = pt[i]
        if c == 0x02 and pt[i + 1] == 0x23:
            add_items(out, ats.get("psb%d" % npsb, []), last, patches, tctx)
            npsb += 1
        if c == 0x19:
            v = int.from_bytes(pt[i + 1:i + 8], "little")
            tctx["host"] = v
            if ntsc in tsc_off:
                patches.append((len(out) + 1, ((v + tsc_off[ntsc]) &
                                               SEVEN).to_bytes(7, "little")))
        out += pt[i:i + n]
        if c == 0x19:
            add_items(out, ats.get("tsc%d" % ntsc, []) + ats.get("tsc*", []),
                      last, patches, tctx)
            ntsc += 1
        if c & 0x1f in (0x01, 0x0d, 0x11, 0x1d) and c != 0x02:
            last = new_ip(last, c, pt[i + 1:i + n])
            if c & 0x1f == 0x0d and c >> 5:
                add_items(out, ats.get(ntip, []), last, patches, tctx)
                ntip += 1
            if c & 0x1f == 0x01:
                add_items(out, ats.get("pgd%d" % npgd, []), last, patches,
                          tctx)
                npgd += 1
        i += n
    nr = {"pgd": npgd, "psb": npsb, "tsc": ntsc}
    missing = [k for k in ats if isinstance(k, int) and k >= ntip]
    missing += [k for k in ats if not isinstance(k, int) and
                k[3:] != "*" and int(k[3:]) >= nr[k[:3]]]
    missing += [k for k in tsc_off if k >= ntsc]
    if missing:
        sys.exit("ptsynth: only %d TIPs, %d TIP.PGDs, %d PSBs, %d TSCs" %
                 (ntip, npgd, npsb, ntsc))
    return bytes(out)


def patch_config(path, bits):
    with open(path, "r+b") as f:
        h = f.read(104)
        attrs_off, = struct.unpack_from("<Q", h, 24)
        f.seek(attrs_off + 8)
        cfg, = struct.unpack("<Q", f.read(8))
        f.seek(attrs_off + 8)
        f.write(struct.pack("<Q", cfg | bits))


def add_info_u64(path, val):
    """Appends VAL to the AUXTRACE_INFO record (type 70); what follows it
    moves 8 bytes on: the data size, the feature table's offsets and the
    AUXTRACE index's record offsets (mkperf's layout: features after the
    data)."""
    with open(path, "rb") as f:
        b = bytearray(f.read())
    data_off, data_size = struct.unpack_from("<QQ", b, 40)
    i = data_off
    while i < data_off + data_size:
        typ, misc, size = struct.unpack_from("<IHH", b, i)
        if typ == 70:
            break
        i += size
    else:
        sys.exit("ptsynth: no AUXTRACE_INFO")
    at = i + size
    struct.pack_into("<H", b, i + 6, size + 8)
    b[at:at] = struct.pack("<Q", val)
    struct.pack_into("<Q", b, 48, data_size + 8)
    feats = [k for k in range(256) if b[72 + k // 8] >> (k % 8) & 1]
    tab = data_off + data_size + 8
    for j, feat in enumerate(feats):
        off, sz = struct.unpack_from("<QQ", b, tab + 16 * j)
        struct.pack_into("<Q", b, tab + 16 * j, off + 8)
        if feat == 18:          # HEADER_AUXTRACE: nr, {offset, size}...
            o = off + 8
            nr, = struct.unpack_from("<Q", b, o)
            for e in range(nr):
                eo, = struct.unpack_from("<Q", b, o + 8 + 16 * e)
                if eo >= at:
                    struct.pack_into("<Q", b, o + 8 + 16 * e, eo + 8)
    with open(path, "wb") as f:
        f.write(b)


def records(b):
    """(offset, type, size) of each record of the data section of B."""
    data_off, data_size = struct.unpack_from("<QQ", b, 40)
    i = data_off
    while i < data_off + data_size:
        typ, _misc, size = struct.unpack_from("<IHH", b, i)
        yield i, typ, size
        i += size + (struct.unpack_from("<Q", b, i + 8)[0]
                     if typ == 71 else 0)


def patch_aux(path, patches):
    """Writes PATCHES (stream offset, bytes) into the AUXTRACE data."""
    with open(path, "rb") as f:
        b = bytearray(f.read())
    for at, typ, _size in records(b):
        if typ != 71:
            continue
        size, off = struct.unpack_from("<QQ", b, at + 8)
        for o, pb in patches:
            for j, c in enumerate(pb):
                if off <= o + j < off + size:
                    b[at + 0x30 + o + j - off] = c
    with open(path, "wb") as f:
        f.write(b)


def event_desc(b, attr, name):
    """EVENT_DESC (feature 12) written anew at the end of B with the PEBS
    event second (perf names events by their index there)."""
    data_off, data_size = struct.unpack_from("<QQ", b, 40)
    feats = [k for k in range(256) if b[72 + k // 8] >> (k % 8) & 1]
    if 12 not in feats:
        return
    tab = data_off + data_size + 16 * feats.index(12)
    off, _sz = struct.unpack_from("<QQ", b, tab)
    nr, asz = struct.unpack_from("<II", b, off)
    i, evs = off + 8, []
    for _ in range(nr):
        nids, = struct.unpack_from("<I", b, i + asz)
        slen, = struct.unpack_from("<I", b, i + asz + 4)
        end = i + asz + 8 + slen + 8 * nids
        evs.append(bytes(b[i:end]))
        i = end
    nm = name.encode() + b"\0"
    nm = nm.ljust(-(-len(nm) // 64) * 64, b"\0")
    evs.insert(1, attr + struct.pack("<II", 1, len(nm)) + nm +
               struct.pack("<Q", 19))
    body = struct.pack("<II", nr + 1, asz) + b"".join(evs)
    struct.pack_into("<QQ", b, tab, len(b), len(body))
    b += body


def add_pebs(path, spec, timed):
    """Adds the PEBS event's attr after the first (intel_pt) one: the attr
    section written anew at the end of the file with the new id array."""
    f = spec.split(":")
    name = f.pop() if not f[-1][:1].isdigit() else "cycles/aux-output/ppp"
    f = [int(x, 0) for x in f]
    st, regs = f[0], f[1] if len(f) > 1 else 0
    period = f[2] if len(f) > 2 else 10000
    st |= 0x1 | 0x2 | 0x10000 | (0x4 if timed else 0)
    flags = (1 << 0) | (1 << 5) | (1 << 6) | (1 << 12) | (3 << 15) | \
        (1 << 18) | (1 << 20) | (1 << 31)
    a = struct.pack("<IIQQQQQ", 0, 128, 0, period, st, 0x14, flags)
    a += struct.pack("<IIQQQQIiQ", 0, 0, 0, 0, 0, 0, 0, 0, regs)
    a += bytes(128 - len(a))
    with open(path, "rb") as fh:
        b = bytearray(fh.read())
    attrs_off, attrs_size = struct.unpack_from("<QQ", b, 24)
    ents = [bytes(b[attrs_off + k:attrs_off + k + 144])
            for k in range(0, attrs_size, 144)]
    b += bytes(-len(b) % 8)
    ids_at = len(b)
    b += struct.pack("<Q", 19)
    ents.insert(1, a + struct.pack("<QQ", ids_at, 8))
    struct.pack_into("<QQ", b, 24, len(b), 144 * len(ents))
    b += b"".join(ents)
    event_desc(b, a, name)
    with open(path, "wb") as fh:
        fh.write(b)


def main():
    av = sys.argv[1:]
    if len(av) < 2:
        sys.exit(__doc__)
    prefix, out = av[0], av[1]
    ats, cfg, extra, cap, pebs, tsc_off = {}, 0, [], None, None, {}
    k = 2
    while k < len(av):
        if av[k] == "--at":
            n, _, items = av[k + 1].partition(":")
            key = n if n[:3] in ("pgd", "psb", "tsc") else int(n)
            ats.setdefault(key, []).extend(items.split(","))
            k += 2
        elif av[k] == "--tsc-off":
            n, _, v = av[k + 1].partition(":")
            tsc_off[int(n)] = int(v, 0)
            k += 2
        elif av[k] == "--cap-event-trace":
            cap = int(av[k + 1], 0)
            k += 2
        elif av[k] == "--pebs":
            pebs = av[k + 1]
            k += 2
        elif av[k] == "--config":
            cfg |= int(av[k + 1], 0)
            k += 2
        else:
            extra.append(av[k])
            k += 1
    with open(prefix + ".pt", "rb") as f:
        pt = f.read()
    patches = []
    tmp = tempfile.mkdtemp(prefix="ptsynth.")
    try:
        base = os.path.join(tmp, os.path.basename(prefix))
        for ext in (".img.addr", ".meta"):
            if os.path.exists(prefix + ext):
                shutil.copy(prefix + ext, base + ext)
        with open(base + ".pt", "wb") as f:
            f.write(insert(pt, ats, patches, tsc_off,
                           (cfg >> 14) & 0xf))
        root = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        mk = os.path.join(os.environ.get("PK_SHARED",
                                         os.path.join(root, "../shared")),
                          "tools/ptperf/mkperf")
        subprocess.run([mk, base, "-o", out] + extra, check=True)
    finally:
        shutil.rmtree(tmp)
    if patches:
        patch_aux(out, patches)
    if cfg:
        patch_config(out, cfg)
    if cap is not None:
        add_info_u64(out, cap)
    if pebs:    # last: the attrs go to the file's end
        add_pebs(out, pebs, "--time" in extra)


if __name__ == "__main__":
    main()
