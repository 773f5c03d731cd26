package tensor

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// fortranOnesNPY is a Fortran-order u8 .npy of shape (2, 3, 1×ones): the
// size-1 dimensions change no layout, but a reorder that walks them
// costs ones steps per element.
func fortranOnesNPY(n, m, ones int) []byte {
	dims := []string{fmt.Sprint(n), fmt.Sprint(m)}
	for range ones {
		dims = append(dims, "1")
	}
	header := "{'descr': '|u1', 'fortran_order': True, 'shape': (" + strings.Join(dims, ",") + "), }"
	var buf bytes.Buffer
	buf.WriteString(npyMagic + "\x02\x00")
	binary.Write(&buf, binary.LittleEndian, uint32(len(header)))
	buf.WriteString(header)
	for j := range m { // column by column
		for i := range n {
			buf.WriteByte(byte(i*m + j))
		}
	}
	return buf.Bytes()
}

// TestNPYFortranManyOnes: a Fortran-order header may list hundreds of
// thousands of size-1 dimensions within MaxNPYHeader; reordering the data
// must cost the bytes, not bytes × rank (300,000 trailing ones over
// 256 KB of data was ~10^11 steps before reorder dropped the ones).
func TestNPYFortranManyOnes(t *testing.T) {
	const n, m, ones = 512, 512, 300_000
	a, err := ReadNPY(bytes.NewReader(fortranOnesNPY(n, m, ones)))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.shape) != 2+ones {
		t.Fatalf("rank %d", len(a.shape))
	}
	got := a.data.([]uint8)
	for k, v := range got {
		if v != byte(k) {
			t.Fatalf("element %d is %d, want %d", k, v, byte(k))
		}
	}
	// And the writer's Fortran path: written, then read back the same.
	var buf bytes.Buffer
	if err := WriteNPYWith(&buf, a, NPYOptions{Fortran: true}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes()[len(buf.Bytes())-n*m:], fortranOnesNPY(n, m, ones)[len(fortranOnesNPY(n, m, ones))-n*m:]) {
		t.Error("the Fortran data written differs")
	}
}
