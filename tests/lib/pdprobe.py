# pdprobe.py: what the probe writers share (symprobe, brprobe, memprobe,
# taskprobe): perf.data records of a pipe-mode stream, and an ELF file's
# executable segment, sections and function symbols.
import struct


def rec(typ, body, misc=2):
    """A record: its header (TYPE, MISC, size) and BODY."""
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body


def padded(s):
    """S NUL-terminated, padded to 8 bytes."""
    b = s.encode() + b'\0'
    return b + b'\0' * (-len(b) % 8)


def stream(attr, records):
    """A pipe-mode file: the header, ATTR (id 1), RECORDS, FINISHED_ROUND."""
    attr += b'\0' * (128 - len(attr))
    return b''.join([b'PERFILE2' + struct.pack('<Q', 16),
                     rec(64, attr + struct.pack('<Q', 1), 0)] + records +
                    [rec(68, b'', 0)])


def file_mode(attr, records):
    """The same as a perf.data file (perf diff 6.1 reads no pipe): the
    header, ATTR's section (id 1), the records; no feature sections."""
    attr += b'\0' * (128 - len(attr))
    data = b''.join(records + [rec(68, b'', 0)])
    ids, attrs = 104, 112          # header 104 bytes, one id, one attr
    at = attrs + 128 + 16
    head = struct.pack('<8sQQ', b'PERFILE2', 104, 128 + 16)
    head += struct.pack('<QQQQQQ', attrs, 128 + 16, at, len(data), 0, 0)
    head += b'\0' * 32
    return head + struct.pack('<Q', 1) + attr + struct.pack('<QQ', ids, 8) \
        + data


def mmap2(pid, tid, start, length, pgoff, path, ino=1234):
    return rec(10, struct.pack('<IIQQQIIQQII', pid, tid, start, length,
                               pgoff, 8, 1, ino, 0, 5, 2) + padded(path))


class Elf:
    """A 64-bit ELF file: its bytes, the first executable PT_LOAD
    (offset, vaddr, filesz), the sections by name (raw header tuples)."""

    def __init__(self, path):
        with open(path, 'rb') as f:
            d = f.read()
        if d[:4] != b'\x7fELF' or d[4] != 2:
            raise SystemExit(f'{path}: not a 64-bit ELF file')
        self.d = d
        phoff, = struct.unpack_from('<Q', d, 0x20)
        shoff, = struct.unpack_from('<Q', d, 0x28)
        phnum, = struct.unpack_from('<H', d, 0x38)
        shnum, shstrndx = struct.unpack_from('<HH', d, 0x3c)
        self.seg = None
        for i in range(phnum):
            p_type, p_flags, p_off, p_vaddr, _, p_filesz = \
                struct.unpack_from('<IIQQQQ', d, phoff + 56 * i)
            if p_type == 1 and p_flags & 1:
                self.seg = (p_off, p_vaddr, p_filesz)
                break
        self.secs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + 64 * i)
                     for i in range(shnum)]
        strtab = self.secs[shstrndx] if shnum else None
        self.named = {}
        for s in self.secs:
            at = strtab[4] + s[0]
            self.named[d[at:d.index(b'\0', at)].decode()] = s

    def symbols(self, table=None):
        """(value, size, info, shndx) of each symbol of TABLE (.symtab,
        else .dynsym)."""
        t = self.named.get(table) if table else \
            self.named.get('.symtab') or self.named.get('.dynsym')
        out = []
        for j in range(t[5] // 24 if t else 0):
            _, info, _, shndx, value, size = struct.unpack_from(
                '<IBBHQQ', self.d, t[4] + 24 * j)
            out.append((value, size, info, shndx))
        return out

    def functions(self):
        """The sized functions in the executable segment, by address."""
        if not self.seg:
            raise SystemExit('no executable segment')
        lo, hi = self.seg[1], self.seg[1] + self.seg[2]
        fs = set()
        for s in self.secs:
            if s[1] not in (2, 11):     # SYMTAB, DYNSYM
                continue
            for j in range(s[5] // 24):
                _, info, _, shndx, value, size = struct.unpack_from(
                    '<IBBHQQ', self.d, s[4] + 24 * j)
                if info & 15 == 2 and shndx and value and size and \
                   lo <= value < hi:
                    fs.add((value, size))
        if not fs:
            raise SystemExit('no functions')
        return sorted(fs)

    def mapping(self, base):
        """Where perf would map the executable segment at BASE: (start,
        length, pgoff)."""
        off, vaddr, filesz = self.seg
        start = base + (vaddr & ~0xfff)
        length = (vaddr + filesz - (vaddr & ~0xfff) + 0xfff) & ~0xfff
        return start, length, off & ~0xfff
