//go:build amd64 && !purego

package simd_test

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestAVX2CodeIsVEX reads the generated assembly and checks that no AVX2
// function uses an AVX-512 feature: a ZMM or opmask register, a vector
// register above 15, or an EVEX-only instruction. Any of them would fault
// on an AVX2 machine, which this machine cannot show.
func TestAVX2CodeIsVEX(t *testing.T) {
	f, err := os.Open("simd_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	highReg := regexp.MustCompile(`\b([XY](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`)
	evexOnly := regexp.MustCompile(`^(VP(AND|ANDN|OR|XOR)[DQ]|VPMOVM2|VPMOV[DQBW]2M|VPTESTN?M|V(P)?BLENDM|VRNDSCALE|VPMULLQ|VEXTRACT[FI](32X8|64X4|32X4|64X2)|VINSERT[FI](32X8|64X4|32X4|64X2)|VPMOV(DW|QD|DB|QW|QB|WB)$|VCVT\w*QQ|VCVTQQ|K\w+|VSCALEF|VPERM[IT]2|VMOVDQU(8|16|32|64)|VPCMPU?[BWDQ]$|VPTERNLOG)`)
	var fn string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "TEXT ") {
			fn = strings.Fields(line)[1]
			continue
		}
		if !strings.Contains(fn, "AVX2(SB)") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "//") {
			continue
		}
		if highReg.MatchString(line) || evexOnly.MatchString(fields[0]) {
			t.Errorf("simd_amd64.s:%d: %s uses AVX-512: %s", n, fn, strings.TrimSpace(line))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
