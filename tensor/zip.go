package tensor

import (
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"sort"
	"unicode/utf8"
)

// The .npz container is a zip archive. It is read and written here with
// compress/flate rather than archive/zip: archive/zip's init registers
// flate's compressor and decompressor, so importing it would link them
// into every Kiln program, .npz or not (TestSmallProgramIsLean). Only what
// NumPy writes and reads is supported: stored and deflated members, zip64
// sizes and offsets, one disk, no encryption.

const (
	zipLocalSig      = 0x04034b50
	zipCentralSig    = 0x02014b50
	zipEndSig        = 0x06054b50
	zip64EndSig      = 0x06064b50
	zip64LocatorSig  = 0x07064b50
	zipDescriptorSig = 0x08074b50
	zipStore         = 0
	zipDeflate       = 8
	zipLocalLen      = 30
	zipCentralLen    = 46
	zipEndLen        = 22
	zip64EndLen      = 56
	zip64LocatorLen  = 20
	zipMax32         = 0xffffffff
	zipMax16         = 0xffff
)

// zipEntry is one member of a zip archive, from its central directory.
type zipEntry struct {
	name         string
	method       uint16
	flags        uint16
	crc          uint32
	csize, usize uint64
	offset       uint64 // of the local header
	limit        uint64 // where the next member (or the central directory) starts: the member's bytes end by then
}

// errZip is a malformed archive.
func errZip(format string, args ...any) error { return fmt.Errorf(format, args...) }

// readZipDir reads the central directory of the size-byte archive r.
func readZipDir(r io.ReaderAt, size int64) ([]zipEntry, error) {
	tailLen := min(size, zipEndLen+zipMax16)
	if tailLen < zipEndLen {
		return nil, errZip("shorter than a zip archive's end record")
	}
	tail := make([]byte, tailLen)
	if _, err := r.ReadAt(tail, size-tailLen); err != nil {
		return nil, err
	}
	end := -1
	for i := len(tail) - zipEndLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(tail[i:]) == zipEndSig && i+zipEndLen+int(binary.LittleEndian.Uint16(tail[i+20:])) <= len(tail) {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, errZip("no end of central directory record")
	}
	endAt := size - tailLen + int64(end)
	e := tail[end:]
	if binary.LittleEndian.Uint16(e[4:]) != 0 || binary.LittleEndian.Uint16(e[6:]) != 0 {
		return nil, errZip("multi-disk archives are not supported")
	}
	count := uint64(binary.LittleEndian.Uint16(e[10:]))
	cdSize := uint64(binary.LittleEndian.Uint32(e[12:]))
	cdOff := uint64(binary.LittleEndian.Uint32(e[16:]))
	if count == zipMax16 || cdSize == zipMax32 || cdOff == zipMax32 {
		if endAt < zip64LocatorLen {
			return nil, errZip("no zip64 end of central directory locator")
		}
		var loc [zip64LocatorLen]byte
		if _, err := r.ReadAt(loc[:], endAt-zip64LocatorLen); err != nil {
			return nil, err
		}
		if binary.LittleEndian.Uint32(loc[:]) != zip64LocatorSig {
			return nil, errZip("no zip64 end of central directory locator")
		}
		at := binary.LittleEndian.Uint64(loc[8:])
		if at > uint64(size) || uint64(size)-at < zip64EndLen {
			return nil, errZip("the zip64 end record at %d is past the end of the archive", at)
		}
		var z [zip64EndLen]byte
		if _, err := r.ReadAt(z[:], int64(at)); err != nil {
			return nil, err
		}
		if binary.LittleEndian.Uint32(z[:]) != zip64EndSig {
			return nil, errZip("no zip64 end of central directory record at %d", at)
		}
		count, cdSize, cdOff = binary.LittleEndian.Uint64(z[32:]), binary.LittleEndian.Uint64(z[40:]), binary.LittleEndian.Uint64(z[48:])
	}
	if cdOff > uint64(size) || cdSize > uint64(size)-cdOff {
		return nil, errZip("the central directory (%d bytes at %d) is past the end of the archive", cdSize, cdOff)
	}
	if count > cdSize/zipCentralLen {
		return nil, errZip("%d members cannot fit a central directory of %d bytes", count, cdSize)
	}
	cd := make([]byte, cdSize) // within the file, checked above
	if _, err := r.ReadAt(cd, int64(cdOff)); err != nil {
		return nil, err
	}
	entries := make([]zipEntry, 0, count)
	for range count {
		if len(cd) < zipCentralLen || binary.LittleEndian.Uint32(cd) != zipCentralSig {
			return nil, errZip("a malformed central directory entry")
		}
		nameLen, extraLen, commentLen := int(binary.LittleEndian.Uint16(cd[28:])), int(binary.LittleEndian.Uint16(cd[30:])), int(binary.LittleEndian.Uint16(cd[32:]))
		if len(cd) < zipCentralLen+nameLen+extraLen+commentLen {
			return nil, errZip("a central directory entry runs past the directory")
		}
		z := zipEntry{
			flags:  binary.LittleEndian.Uint16(cd[8:]),
			method: binary.LittleEndian.Uint16(cd[10:]),
			crc:    binary.LittleEndian.Uint32(cd[16:]),
			csize:  uint64(binary.LittleEndian.Uint32(cd[20:])),
			usize:  uint64(binary.LittleEndian.Uint32(cd[24:])),
			offset: uint64(binary.LittleEndian.Uint32(cd[42:])),
			name:   string(cd[zipCentralLen : zipCentralLen+nameLen]),
		}
		extra := cd[zipCentralLen+nameLen : zipCentralLen+nameLen+extraLen]
		for len(extra) >= 4 {
			id, n := binary.LittleEndian.Uint16(extra), int(binary.LittleEndian.Uint16(extra[2:]))
			if len(extra) < 4+n {
				return nil, errZip("%s: a malformed extra field", z.name)
			}
			if id == 1 { // zip64: the fields that overflowed, in this order
				f := extra[4 : 4+n]
				for _, p := range []*uint64{&z.usize, &z.csize, &z.offset} {
					if *p != zipMax32 {
						continue
					}
					if len(f) < 8 {
						return nil, errZip("%s: a short zip64 extra field", z.name)
					}
					*p, f = binary.LittleEndian.Uint64(f), f[8:]
				}
			}
			extra = extra[4+n:]
		}
		cd = cd[zipCentralLen+nameLen+extraLen+commentLen:]
		entries = append(entries, z)
	}
	// Each member must end before the next begins, as Python's zipfile
	// checks: members sharing bytes are an overlapping-entry zip bomb
	// (one deflated kernel named a thousand times expands a thousand
	// times, each within MaxAlloc), never an archive NumPy writes.
	byOffset := make([]int, len(entries))
	for i := range byOffset {
		byOffset[i] = i
	}
	sort.SliceStable(byOffset, func(i, j int) bool { return entries[byOffset[i]].offset < entries[byOffset[j]].offset })
	for k, i := range byOffset {
		entries[i].limit = cdOff
		if k+1 < len(byOffset) {
			entries[i].limit = entries[byOffset[k+1]].offset
		}
	}
	return entries, nil
}

// open returns the member's uncompressed bytes, checked against its size
// and CRC-32 at the end. A stored member's size is real (its bytes are in
// the file, checked here); a deflated member's is a claim, bounded here by
// deflate's ratio.
func (z zipEntry) open(r io.ReaderAt, size int64) (io.ReadCloser, error) {
	if z.flags&1 != 0 {
		return nil, errZip("encrypted members are not supported")
	}
	if z.offset > uint64(size) || uint64(size)-z.offset < zipLocalLen {
		return nil, errZip("the local header at %d is past the end of the archive", z.offset)
	}
	var h [zipLocalLen]byte
	if _, err := r.ReadAt(h[:], int64(z.offset)); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(h[:]) != zipLocalSig {
		return nil, errZip("no local header at %d", z.offset)
	}
	dataAt := z.offset + zipLocalLen + uint64(binary.LittleEndian.Uint16(h[26:])) + uint64(binary.LittleEndian.Uint16(h[28:]))
	if dataAt > uint64(size) || z.csize > uint64(size)-dataAt {
		return nil, errZip("%d bytes of data at %d are past the end of the %d-byte archive", z.csize, dataAt, size)
	}
	if dataAt > z.limit || z.csize > z.limit-dataAt {
		return nil, errZip("%d bytes of data at %d overlap the next member or the central directory, at %d", z.csize, dataAt, z.limit)
	}
	// The local header must name the member the directory names, as
	// Python's zipfile checks: a tool that lists one and extracts the
	// other would see another archive.
	if int(binary.LittleEndian.Uint16(h[26:])) != len(z.name) {
		return nil, errZip("the local header at %d names another member than the central directory's %q", z.offset, z.name)
	}
	local := make([]byte, len(z.name)) // at most 65535 bytes, within the file (checked above)
	if _, err := r.ReadAt(local, int64(z.offset)+zipLocalLen); err != nil {
		return nil, err
	}
	if string(local) != z.name {
		return nil, errZip("the local header at %d names %q, the central directory %q", z.offset, local, z.name)
	}
	section := io.NewSectionReader(r, int64(dataAt), int64(z.csize))
	var rc io.ReadCloser
	switch z.method {
	case zipStore:
		if z.usize != z.csize {
			return nil, errZip("a stored member claims %d bytes uncompressed but %d stored", z.usize, z.csize)
		}
		rc = io.NopCloser(section)
	case zipDeflate:
		if z.usize/maxDeflateRatio > z.csize {
			return nil, errZip("a deflated member of %d bytes claims %d bytes uncompressed, more than deflate can expand to", z.csize, z.usize)
		}
		rc = flate.NewReader(section)
	default:
		return nil, errZip("compression method %d is not stored (0) or deflated (8)", z.method)
	}
	return &zipChecker{rc: rc, want: z.usize, crc: z.crc, hash: crc32.NewIEEE()}, nil
}

// zipChecker counts and hashes a member's bytes and fails at the end
// when they are not the central directory's size and CRC-32.
type zipChecker struct {
	rc   io.ReadCloser
	n    uint64
	want uint64
	crc  uint32
	hash hash.Hash32
}

func (c *zipChecker) Read(p []byte) (int, error) {
	if c.n == c.want { // the member's end: nothing more may come
		var one [1]byte
		if k, _ := c.rc.Read(one[:]); k > 0 {
			return 0, errZip("the member has more than the %d bytes it claims", c.want)
		}
		if c.hash.Sum32() != c.crc {
			return 0, errZip("the member's CRC-32 is %08x, the archive says %08x", c.hash.Sum32(), c.crc)
		}
		return 0, io.EOF
	}
	if uint64(len(p)) > c.want-c.n {
		p = p[:c.want-c.n]
	}
	n, err := c.rc.Read(p)
	c.n += uint64(n)
	c.hash.Write(p[:n])
	if errors.Is(err, io.EOF) {
		if c.n < c.want {
			return n, errZip("the member has %d bytes, it claims %d", c.n, c.want)
		}
		err = nil
	}
	return n, err
}

func (c *zipChecker) Close() error { return c.rc.Close() }

// zipWriter writes a zip archive member by member.
type zipWriter struct {
	w       io.Writer
	off     uint64
	entries []zipEntry
	cur     *zipMember
}

// zipMember is the member being written: its data goes through the
// compressor (deflate) into the archive, counted and hashed.
type zipMember struct {
	z    *zipWriter
	e    zipEntry
	fw   *flate.Writer
	hash hash.Hash32
}

func (m *zipMember) Write(p []byte) (int, error) {
	m.hash.Write(p)
	m.e.usize += uint64(len(p))
	if m.fw != nil {
		return m.fw.Write(p)
	}
	return m.z.write(p)
}

// write writes compressed bytes to the archive.
func (z *zipWriter) write(p []byte) (int, error) {
	n, err := z.w.Write(p)
	z.off += uint64(n)
	if z.cur != nil {
		z.cur.e.csize += uint64(n)
	}
	return n, err
}

type zipCounter struct{ z *zipWriter }

func (c zipCounter) Write(p []byte) (int, error) { return c.z.write(p) }

// create starts a member; its data descriptor gives the sizes and CRC
// after the data, as zip writers that stream do.
func (z *zipWriter) create(name string, deflate bool) (io.Writer, error) {
	if err := z.finish(); err != nil {
		return nil, err
	}
	e := zipEntry{name: name, flags: 0x8, offset: z.off}
	if !utf8ValidASCII(name) {
		e.flags |= 0x800 // the name is UTF-8
	}
	if deflate {
		e.method = zipDeflate
	}
	h := binary.LittleEndian.AppendUint32(nil, zipLocalSig)
	h = binary.LittleEndian.AppendUint16(h, 45) // version needed: zip64
	h = binary.LittleEndian.AppendUint16(h, e.flags)
	h = binary.LittleEndian.AppendUint16(h, e.method)
	h = binary.LittleEndian.AppendUint16(h, 0)    // time 00:00
	h = binary.LittleEndian.AppendUint16(h, 0x21) // date 1980-01-01
	h = append(h, make([]byte, 12)...)            // CRC and sizes: in the data descriptor
	h = binary.LittleEndian.AppendUint16(h, uint16(len(name)))
	h = binary.LittleEndian.AppendUint16(h, 0)
	h = append(h, name...)
	if _, err := z.write(h); err != nil {
		return nil, err
	}
	m := &zipMember{z: z, e: e, hash: crc32.NewIEEE()}
	if deflate {
		m.fw, _ = flate.NewWriter(zipCounter{z}, flate.DefaultCompression) // the level is valid
	}
	z.cur = m
	return m, nil
}

// finish ends the member being written with its data descriptor.
func (z *zipWriter) finish() error {
	m := z.cur
	if m == nil {
		return nil
	}
	if m.fw != nil {
		if err := m.fw.Close(); err != nil {
			return err
		}
	}
	z.cur = nil
	m.e.crc = m.hash.Sum32()
	d := binary.LittleEndian.AppendUint32(nil, zipDescriptorSig)
	d = binary.LittleEndian.AppendUint32(d, m.e.crc)
	if m.e.csize >= zipMax32 || m.e.usize >= zipMax32 {
		d = binary.LittleEndian.AppendUint64(d, m.e.csize)
		d = binary.LittleEndian.AppendUint64(d, m.e.usize)
	} else {
		d = binary.LittleEndian.AppendUint32(d, uint32(m.e.csize))
		d = binary.LittleEndian.AppendUint32(d, uint32(m.e.usize))
	}
	z.entries = append(z.entries, m.e)
	_, err := z.write(d)
	return err
}

// close ends the last member and writes the central directory and the
// end records (zip64 ones when a size, an offset or the count needs them).
func (z *zipWriter) close() error {
	if err := z.finish(); err != nil {
		return err
	}
	cdOff := z.off
	for _, e := range z.entries {
		var extra []byte
		field := func(v uint64) uint32 {
			if v >= zipMax32 {
				extra = binary.LittleEndian.AppendUint64(extra, v)
				return zipMax32
			}
			return uint32(v)
		}
		usize, csize, off := field(e.usize), field(e.csize), field(e.offset)
		if extra != nil {
			extra = append(binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint16(nil, 1), uint16(len(extra))), extra...)
		}
		c := binary.LittleEndian.AppendUint32(nil, zipCentralSig)
		c = binary.LittleEndian.AppendUint16(c, 45) // made by: zip64-aware, MS-DOS attributes
		c = binary.LittleEndian.AppendUint16(c, 45)
		c = binary.LittleEndian.AppendUint16(c, e.flags)
		c = binary.LittleEndian.AppendUint16(c, e.method)
		c = binary.LittleEndian.AppendUint16(c, 0)
		c = binary.LittleEndian.AppendUint16(c, 0x21)
		c = binary.LittleEndian.AppendUint32(c, e.crc)
		c = binary.LittleEndian.AppendUint32(c, csize)
		c = binary.LittleEndian.AppendUint32(c, usize)
		c = binary.LittleEndian.AppendUint16(c, uint16(len(e.name)))
		c = binary.LittleEndian.AppendUint16(c, uint16(len(extra)))
		c = append(c, make([]byte, 10)...) // comment length, disk, internal and external attributes
		c = binary.LittleEndian.AppendUint32(c, off)
		c = append(append(c, e.name...), extra...)
		if _, err := z.write(c); err != nil {
			return err
		}
	}
	cdSize, count := z.off-cdOff, uint64(len(z.entries))
	var end []byte
	if count >= zipMax16 || cdSize >= zipMax32 || cdOff >= zipMax32 {
		at := z.off
		end = binary.LittleEndian.AppendUint32(end, zip64EndSig)
		end = binary.LittleEndian.AppendUint64(end, zip64EndLen-12)
		end = binary.LittleEndian.AppendUint16(end, 45)
		end = binary.LittleEndian.AppendUint16(end, 45)
		end = append(end, make([]byte, 8)...) // disk numbers
		end = binary.LittleEndian.AppendUint64(end, count)
		end = binary.LittleEndian.AppendUint64(end, count)
		end = binary.LittleEndian.AppendUint64(end, cdSize)
		end = binary.LittleEndian.AppendUint64(end, cdOff)
		end = binary.LittleEndian.AppendUint32(end, zip64LocatorSig)
		end = binary.LittleEndian.AppendUint32(end, 0)
		end = binary.LittleEndian.AppendUint64(end, at)
		end = binary.LittleEndian.AppendUint32(end, 1)
		count, cdSize, cdOff = min(count, zipMax16), min(cdSize, zipMax32), min(cdOff, zipMax32)
	}
	end = binary.LittleEndian.AppendUint32(end, zipEndSig)
	end = append(end, make([]byte, 4)...) // disk numbers
	end = binary.LittleEndian.AppendUint16(end, uint16(count))
	end = binary.LittleEndian.AppendUint16(end, uint16(count))
	end = binary.LittleEndian.AppendUint32(end, uint32(cdSize))
	end = binary.LittleEndian.AppendUint32(end, uint32(cdOff))
	end = binary.LittleEndian.AppendUint16(end, 0) // comment length
	_, err := z.write(end)
	return err
}

func utf8ValidASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
