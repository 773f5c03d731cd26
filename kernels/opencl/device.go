package opencl

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

// DeviceInfo describes one OpenCL device, as `kiln devices` prints it.
type DeviceInfo struct {
	// Index is the device's position in the list Devices returns: the
	// number KILN_OPENCL_DEVICE and Options.Device accept.
	Index           int
	Platform        string // platform name, e.g. "Portable Computing Language"
	PlatformVersion string
	Name            string
	Vendor          string
	Version         string // "OpenCL 3.0 …"
	DriverVersion   string
	OpenCLC         string // OpenCL C version, e.g. "OpenCL C 1.2 PoCL"
	Type            string // "gpu", "cpu", "accelerator" or "other"
	ComputeUnits    int
	ClockMHz        int
	// MaxWorkGroupSize bounds the work-group sizes the generated kernels
	// use.
	MaxWorkGroupSize int
	GlobalMemory     int64 // bytes
	LocalMemory      int64 // bytes of __local memory per work-group
	MaxAlloc         int64 // largest single buffer, bytes
	// FP16 is cl_khr_fp16 (not needed: f16 is computed in f32 and stored
	// by bit operations). FP64 is cl_khr_fp64, needed for f64 and c128,
	// and used for exact c64 division, f32 transcendentals in double, ….
	FP16, FP64 bool
	// CorrectlyRoundedDivideSqrt: the device honours
	// -cl-fp32-correctly-rounded-divide-sqrt (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT).
	CorrectlyRoundedDivideSqrt bool
	// Denormals: f32 subnormals are supported (CL_FP_DENORM); without them
	// f32 results that are subnormal flush to zero and differ from the CPU.
	Denormals  bool
	Extensions []string
}

// String is the one-line summary `kiln devices` prints.
func (d DeviceInfo) String() string {
	var feats []string
	if d.FP64 {
		feats = append(feats, "fp64")
	}
	if d.FP16 {
		feats = append(feats, "fp16")
	}
	return fmt.Sprintf("%d: %s (%s, %s) %s, %d compute units, %s global, %s local, max work-group %d [%s]",
		d.Index, d.Name, d.Platform, d.Type, d.Version, d.ComputeUnits, bytesString(d.GlobalMemory),
		bytesString(d.LocalMemory), d.MaxWorkGroupSize, strings.Join(feats, " "))
}

func bytesString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// device is a discovered device with its handles.
type device struct {
	info     DeviceInfo
	platform clPlatform
	id       clDevice
}

// OpenCL info parameters.
const (
	clPlatformVersion = 0x0901
	clPlatformName    = 0x0902

	clDeviceType             = 0x1000
	clDeviceMaxComputeUnits  = 0x1002
	clDeviceMaxWorkGroupSize = 0x1004
	clDeviceMaxClock         = 0x100C
	clDeviceMaxMemAlloc      = 0x1010
	clDeviceSingleFPConfig   = 0x101B
	clDeviceGlobalMemSize    = 0x101F
	clDeviceLocalMemSize     = 0x1023
	clDeviceName             = 0x102B
	clDeviceVendor           = 0x102C
	clDriverVersion          = 0x102D
	clDeviceVersion          = 0x102F
	clDeviceExtensions       = 0x1030
	clDeviceOpenCLCVersion   = 0x103D
	clDeviceDoubleFPConfig   = 0x1032

	clDeviceTypeCPU = 1 << 1
	clDeviceTypeGPU = 1 << 2
	clDeviceTypeAcc = 1 << 3
	clDeviceTypeAll = 0xFFFFFFFF

	clFPDenorm                     = 1 << 0
	clFPCorrectlyRoundedDivideSqrt = 1 << 7
)

// Devices lists every OpenCL device of every platform, loading the OpenCL
// library if needed. With no library, platform or device it returns an
// *Error saying what to install.
func Devices() ([]DeviceInfo, error) {
	devs, err := discover()
	if err != nil {
		return nil, err
	}
	out := make([]DeviceInfo, len(devs))
	for i, d := range devs {
		out[i] = d.info
	}
	return out, nil
}

// discover enumerates the devices of all platforms.
func discover() ([]device, error) {
	cl, err := load()
	if err != nil {
		return nil, err
	}
	var n uint32
	if st := cl.GetPlatformIDs(0, nil, &n); (st != clSuccess && st != clPlatformNotFoundKHR) || n == 0 {
		e := &Error{Kind: KindNoPlatform, Msg: "no OpenCL platform is installed", Hint: hintInstall}
		if st != clSuccess && st != clPlatformNotFoundKHR {
			e.Call, e.Code = "clGetPlatformIDs", st
		}
		return nil, e
	}
	platforms := make([]clPlatform, n)
	if st := cl.GetPlatformIDs(n, &platforms[0], nil); st != clSuccess {
		return nil, &Error{Kind: KindNoPlatform, Call: "clGetPlatformIDs", Code: st, Msg: "cannot list OpenCL platforms", Hint: hintInstall}
	}
	var devs []device
	for _, p := range platforms {
		pname := platformString(cl, p, clPlatformName)
		pver := platformString(cl, p, clPlatformVersion)
		var m uint32
		if st := cl.GetDeviceIDs(p, clDeviceTypeAll, 0, nil, &m); st != clSuccess || m == 0 {
			continue // a platform without devices (CL_DEVICE_NOT_FOUND)
		}
		ids := make([]clDevice, m)
		if st := cl.GetDeviceIDs(p, clDeviceTypeAll, m, &ids[0], nil); st != clSuccess {
			continue
		}
		for _, id := range ids {
			info := deviceInfo(cl, id)
			info.Index, info.Platform, info.PlatformVersion = len(devs), pname, pver
			devs = append(devs, device{info: info, platform: p, id: id})
		}
	}
	if len(devs) == 0 {
		return nil, &Error{Kind: KindNoDevice, Msg: "the OpenCL platforms report no device", Hint: hintInstall}
	}
	return devs, nil
}

// chooseDevice applies Options.Device (or KILN_OPENCL_DEVICE): an index, a
// case-insensitive substring of platform, name, vendor or version ("pocl"
// is in PoCL's version string), or — when empty —
// the first GPU, else the first device.
func chooseDevice(devs []device, want string) (device, error) {
	source := "Options.Device"
	if want == "" {
		want, source = os.Getenv("KILN_OPENCL_DEVICE"), "KILN_OPENCL_DEVICE"
	}
	want = strings.TrimSpace(want)
	if want == "" {
		for _, d := range devs {
			if d.info.Type == "gpu" {
				return d, nil
			}
		}
		return devs[0], nil
	}
	if i, err := strconv.Atoi(want); err == nil {
		if i >= 0 && i < len(devs) {
			return devs[i], nil
		}
	} else {
		w := strings.ToLower(want)
		for _, d := range devs {
			hay := strings.ToLower(d.info.Platform + " " + d.info.Name + " " + d.info.Vendor + " " + d.info.Version)
			if strings.Contains(hay, w) {
				return d, nil
			}
		}
	}
	var names []string
	for _, d := range devs {
		names = append(names, fmt.Sprintf("%d: %s (%s)", d.info.Index, d.info.Name, d.info.Platform))
	}
	return device{}, &Error{Kind: KindNoDevice, Msg: fmt.Sprintf("%s=%q matches no device; available: %s", source, want, strings.Join(names, "; ")), Hint: hintDevice}
}

func platformString(cl *api, p clPlatform, param uint32) string {
	var n uintptr
	if cl.GetPlatformInfo(p, param, 0, nil, &n) != clSuccess || n == 0 {
		return ""
	}
	buf := make([]byte, n)
	if cl.GetPlatformInfo(p, param, n, unsafe.Pointer(&buf[0]), nil) != clSuccess {
		return ""
	}
	return cString(buf)
}

func deviceString(cl *api, d clDevice, param uint32) string {
	var n uintptr
	if cl.GetDeviceInfo(d, param, 0, nil, &n) != clSuccess || n == 0 {
		return ""
	}
	buf := make([]byte, n)
	if cl.GetDeviceInfo(d, param, n, unsafe.Pointer(&buf[0]), nil) != clSuccess {
		return ""
	}
	return cString(buf)
}

// deviceUint reads a cl_uint, cl_ulong, size_t or bitfield parameter.
func deviceUint(cl *api, d clDevice, param uint32, size uintptr) uint64 {
	var v uint64
	if cl.GetDeviceInfo(d, param, size, unsafe.Pointer(&v), nil) != clSuccess {
		return 0
	}
	return v
}

func cString(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

func deviceInfo(cl *api, id clDevice) DeviceInfo {
	info := DeviceInfo{
		Name:             deviceString(cl, id, clDeviceName),
		Vendor:           deviceString(cl, id, clDeviceVendor),
		Version:          deviceString(cl, id, clDeviceVersion),
		DriverVersion:    deviceString(cl, id, clDriverVersion),
		OpenCLC:          deviceString(cl, id, clDeviceOpenCLCVersion),
		ComputeUnits:     int(deviceUint(cl, id, clDeviceMaxComputeUnits, 4)),
		ClockMHz:         int(deviceUint(cl, id, clDeviceMaxClock, 4)),
		MaxWorkGroupSize: int(deviceUint(cl, id, clDeviceMaxWorkGroupSize, unsafe.Sizeof(uintptr(0)))),
		GlobalMemory:     int64(deviceUint(cl, id, clDeviceGlobalMemSize, 8)),
		LocalMemory:      int64(deviceUint(cl, id, clDeviceLocalMemSize, 8)),
		MaxAlloc:         int64(deviceUint(cl, id, clDeviceMaxMemAlloc, 8)),
		Extensions:       strings.Fields(deviceString(cl, id, clDeviceExtensions)),
	}
	switch t := deviceUint(cl, id, clDeviceType, 8); {
	case t&clDeviceTypeGPU != 0:
		info.Type = "gpu"
	case t&clDeviceTypeCPU != 0:
		info.Type = "cpu"
	case t&clDeviceTypeAcc != 0:
		info.Type = "accelerator"
	default:
		info.Type = "other"
	}
	for _, e := range info.Extensions {
		switch e {
		case "cl_khr_fp64":
			info.FP64 = true
		case "cl_khr_fp16":
			info.FP16 = true
		}
	}
	if deviceUint(cl, id, clDeviceDoubleFPConfig, 8) != 0 {
		info.FP64 = true
	}
	fp := deviceUint(cl, id, clDeviceSingleFPConfig, 8)
	info.CorrectlyRoundedDivideSqrt = fp&clFPCorrectlyRoundedDivideSqrt != 0
	info.Denormals = fp&clFPDenorm != 0
	return info
}
