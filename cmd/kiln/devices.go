package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/kiln-go/kiln/kernels/opencl"
)

func init() {
	register("devices", "list the OpenCL devices the opencl backend can run on", runDevices)
}

func runDevices(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("devices", "[--json]\n\n"+
		"Lists every OpenCL device of every platform with its facts. The opencl\n"+
		"backend uses the first GPU, else the first device; KILN_OPENCL_DEVICE\n"+
		"(an index or a name substring) chooses another.", stderr)
	asJSON := fs.Bool("json", false, "print the devices as a JSON array")
	if pos, status := parseFlags(fs, args, stdout); status >= 0 {
		return status
	} else if len(pos) > 0 {
		fmt.Fprintf(stderr, "kiln devices: unexpected argument %q\n", pos[0])
		return 2
	}
	devs, err := opencl.Devices()
	if err != nil {
		if *asJSON {
			writeJSONError(stdout, err)
		} else {
			fmt.Fprintln(stderr, err)
		}
		return 1
	}
	if *asJSON {
		b, _ := json.MarshalIndent(devs, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	for _, d := range devs {
		fmt.Fprintln(stdout, d)
	}
	return 0
}
