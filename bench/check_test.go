package main

import (
	"strings"
	"testing"
)

// TestCompareParts: a result of several outputs is checked part by part,
// each relative to its own largest element — an error in the small part
// that the large part's scale would hide is reported, by its part.
func TestCompareParts(t *testing.T) {
	want := []float32{1, 2, 3, 1000, 2000}
	got := []float32{1, 2.01, 3, 1000, 2000} // 0.33% of part 0's largest, 5e-6 of the whole
	if msg, _ := compare(got, want, 1e-4, true); msg != "" {
		t.Fatalf("the whole compared at once: %s, want no difference (the test's premise)", msg)
	}
	msg, worst := compareParts(got, want, 1e-4, true, []int{3, 2})
	if !strings.HasPrefix(msg, "output 0: 1 of 3 elements differ") || worst < 3e-3 {
		t.Errorf("compareParts = %q, %g; want output 0's difference reported", msg, worst)
	}
	if msg, _ := compareParts(want, want, 1e-4, true, []int{3, 2}); msg != "" {
		t.Errorf("equal results: %q", msg)
	}
	if msg, _ := compareParts(want, want, 1e-4, true, []int{3, 3}); !strings.Contains(msg, "want at least 6") {
		t.Errorf("parts longer than the result: %q", msg)
	}
	if msg, _ := compareParts(want, want, 1e-4, true, []int{2, 2}); !strings.Contains(msg, "5 elements, want 4") {
		t.Errorf("parts shorter than the result: %q", msg)
	}
}
