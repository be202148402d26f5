// Hosted checks of the arm64 Linux ABI against the Go distribution's own arm64 definitions.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"gmpos/kernel/netabi"
)

// These tests run on any host: they type-check the arm64 definitions of the Go distribution —
// syscall's and golang.org/x/sys/unix's ztypes_linux_arm64.go, the runtime's
// defs_linux_arm64.go — with arm64's sizes (go/types, types.SizesFor("gc", "arm64")) and compare
// their real field offsets with abi_arm64_layout.go's numbers, which abi_arm64.go writes with.
// The runtime's definitions matter most: they are what the Go runtime's signal handler reads.

// a64GoEnv returns `go env` values, once per test binary.
var a64GoEnvCache = map[string]string{}

func a64GoEnv(t *testing.T, key string) string {
	t.Helper()
	if v, ok := a64GoEnvCache[key]; ok {
		return v
	}
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", key, err)
	}
	v := strings.TrimSpace(string(out))
	a64GoEnvCache[key] = v
	return v
}

func a64Goroot(t *testing.T) string { return a64GoEnv(t, "GOROOT") }

// a64XsysDir is golang.org/x/sys at the version go.sum names, in the module cache ("" if absent:
// no test downloads anything).
func a64XsysDir(t *testing.T) string {
	t.Helper()
	sum, err := os.ReadFile("../go.sum")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(sum), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "golang.org/x/sys" && !strings.HasSuffix(f[1], "/go.mod") {
			dir := filepath.Join(a64GoEnv(t, "GOMODCACHE"), "golang.org/x/sys@"+f[1])
			if _, err := os.Stat(dir); err == nil {
				return dir
			}
		}
	}
	return ""
}

// a64TypeCheck parses files of one package and type-checks them for goarch. The files are parts of
// bigger packages, so names they use from elsewhere are undefined: those errors are ignored, and
// lookup refuses any type whose layout they made invalid.
func a64TypeCheck(t *testing.T, goarch string, paths ...string) *types.Package {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{
		Importer: a64Importer(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			return types.NewPackage(path, filepath.Base(path)), nil
		}),
		Sizes: types.SizesFor("gc", goarch),
		Error: func(error) {},
	}
	pkg, _ := conf.Check(files[0].Name.Name, fset, files, nil)
	return pkg
}

type a64Importer func(string) (*types.Package, error)

func (f a64Importer) Import(path string) (*types.Package, error) { return f(path) }

// a64Layout is a struct type's size and its named fields' offsets and sizes, for one architecture.
type a64Layout struct {
	size   int64
	offset map[string]int64
	fsize  map[string]int64
}

func a64StructLayout(t *testing.T, pkg *types.Package, goarch, name string) a64Layout {
	t.Helper()
	obj := pkg.Scope().Lookup(name)
	if obj == nil {
		t.Fatalf("%s: no type %s", pkg.Path(), name)
	}
	st, ok := obj.Type().Underlying().(*types.Struct)
	if !ok {
		t.Fatalf("%s.%s is not a struct", pkg.Path(), name)
	}
	sizes := types.SizesFor("gc", goarch)
	var fields []*types.Var
	for i := 0; i < st.NumFields(); i++ {
		fields = append(fields, st.Field(i))
		if !a64ValidType(st.Field(i).Type()) {
			t.Fatalf("%s.%s.%s: type not resolved (%s)", pkg.Path(), name, st.Field(i).Name(), st.Field(i).Type())
		}
	}
	offs := sizes.Offsetsof(fields)
	l := a64Layout{size: sizes.Sizeof(st), offset: map[string]int64{}, fsize: map[string]int64{}}
	for i, f := range fields {
		if f.Name() != "_" {
			l.offset[f.Name()] = offs[i]
			l.fsize[f.Name()] = sizes.Sizeof(f.Type())
		}
	}
	return l
}

// a64ValidType reports whether typ's layout is known (no part of it refers to an undefined name).
func a64ValidType(typ types.Type) bool {
	switch u := typ.Underlying().(type) {
	case *types.Basic:
		return u.Kind() != types.Invalid
	case *types.Array:
		return u.Len() >= 0 && a64ValidType(u.Elem())
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if !a64ValidType(u.Field(i).Type()) {
				return false
			}
		}
	}
	return true
}

// want compares one layout with expected offsets (and sizes, where given as field:size).
func (l a64Layout) want(t *testing.T, what string, size int64, offsets map[string]int64, fieldSizes map[string]int64) {
	t.Helper()
	if l.size != size {
		t.Errorf("%s: size %d, abi_arm64_layout.go says %d", what, l.size, size)
	}
	for f, off := range offsets {
		got, ok := l.offset[f]
		if !ok {
			t.Errorf("%s: no field %s", what, f)
			continue
		}
		if got != off {
			t.Errorf("%s.%s at %d, abi_arm64_layout.go says %d", what, f, got, off)
		}
	}
	for f, n := range fieldSizes {
		if got := l.fsize[f]; got != n {
			t.Errorf("%s.%s is %d bytes, abi_arm64.go writes %d", what, f, got, n)
		}
	}
}

// a64UnixTypes lists the arm64 ztypes files to check: syscall's, the x/sys copy vendored in GOROOT,
// and the x/sys go.sum names (when it is in the module cache).
func a64UnixTypes(t *testing.T) map[string]string {
	root := a64Goroot(t)
	m := map[string]string{
		"syscall":             filepath.Join(root, "src/syscall/ztypes_linux_arm64.go"),
		"GOROOT vendor x/sys": filepath.Join(root, "src/cmd/vendor/golang.org/x/sys/unix/ztypes_linux_arm64.go"),
	}
	if d := a64XsysDir(t); d != "" {
		m["x/sys "+filepath.Base(d)] = filepath.Join(d, "unix/ztypes_linux_arm64.go")
	} else {
		t.Log("golang.org/x/sys is not in the module cache: checking the distribution's copies only")
	}
	return m
}

func TestArm64LayoutStat(t *testing.T) {
	for src, path := range a64UnixTypes(t) {
		pkg := a64TypeCheck(t, "arm64", path)
		a64StructLayout(t, pkg, "arm64", "Stat_t").want(t, src+" Stat_t", a64StatSize,
			map[string]int64{"Dev": a64StDev, "Ino": a64StIno, "Mode": a64StMode, "Nlink": a64StNlink,
				"Uid": a64StUID, "Gid": a64StGID, "Rdev": a64StRdev, "Size": a64StSize,
				"Blksize": a64StBlksize, "Blocks": a64StBlocks,
				"Atim": a64StAtime, "Mtim": a64StMtime, "Ctim": a64StCtime},
			// putStat's store widths.
			map[string]int64{"Dev": 8, "Ino": 8, "Mode": 4, "Nlink": 4, "Uid": 4, "Gid": 4, "Rdev": 8,
				"Size": 8, "Blksize": 4, "Blocks": 8, "Atim": 16})
		// putTimespec: tv_sec at 0, tv_nsec at 8.
		a64StructLayout(t, pkg, "arm64", "Timespec").want(t, src+" Timespec", 16,
			map[string]int64{"Sec": 0, "Nsec": 8}, nil)
	}
}

func TestArm64LayoutEpollEvent(t *testing.T) {
	for src, path := range a64UnixTypes(t) {
		l := a64StructLayout(t, a64TypeCheck(t, "arm64", path), "arm64", "EpollEvent")
		// The Go types split the u64 data into Fd (its low half, little-endian) and Pad.
		l.want(t, src+" EpollEvent", a64EpollEventSize,
			map[string]int64{"Events": a64EpollEvents, "Fd": a64EpollData}, map[string]int64{"Events": 4})
	}
}

// putStatfs (sys_path.go) writes the same 120-byte struct statfs on every architecture: check
// that arm64's is that one (asm-generic/statfs.h with a 64-bit __statfs_word).
func TestArm64LayoutStatfs(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		path := filepath.Join(a64Goroot(t), "src/syscall/ztypes_linux_"+arch+".go")
		a64StructLayout(t, a64TypeCheck(t, arch, path), arch, "Statfs_t").want(t, arch+" Statfs_t", 120,
			map[string]int64{"Type": 0, "Bsize": 8, "Blocks": 16, "Bfree": 24, "Bavail": 32,
				"Files": 40, "Ffree": 48, "Namelen": 64, "Frsize": 72}, nil)
	}
}

// The open flags: arm64's own four against the Go distribution's arm64 values, and the ones the
// portable kernel defines once (fd.go, fd_file.go, sys_path.go) against both architectures'.
func TestArm64LayoutOpenFlags(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		pkg := a64TypeCheck(t, arch, filepath.Join(a64Goroot(t), "src/syscall/zerrors_linux_"+arch+".go"))
		want := map[string]uint64{"O_APPEND": oAppend, "O_NONBLOCK": oNonblock, "O_CLOEXEC": oCloexec,
			"O_CREAT": oCreat, "O_EXCL": oExcl, "O_TRUNC": oTrunc, "O_RDWR": oRdwr, "O_WRONLY": oWronly,
			"O_ASYNC": 0o20000, "O_NOATIME": 0o1000000} // fd.go setflMask's literals
		if arch == "arm64" {
			want["O_DIRECTORY"], want["O_NOFOLLOW"], want["O_DIRECT"] = a64ODirectory, a64ONofollow, a64ODirect
			want["O_PATH"] = oPath
		}
		for name, v := range want {
			c, ok := pkg.Scope().Lookup(name).(*types.Const)
			if !ok {
				t.Errorf("%s: no %s", arch, name)
				continue
			}
			if got, _ := constant.Uint64Val(c.Val()); got != v {
				t.Errorf("%s: %s = %#o, the kernel uses %#o", arch, name, got, v)
			}
		}
	}
	// O_TMPFILE is __O_TMPFILE | O_DIRECTORY (sys_path.go oTmpfile). syscall's frozen arm64
	// table has 0o20200000 (x86-64's O_DIRECTORY); x/sys has Linux's value.
	for src, path := range map[string]string{
		"GOROOT vendor x/sys": filepath.Join(a64Goroot(t), "src/cmd/vendor/golang.org/x/sys/unix/zerrors_linux_arm64.go"),
		"x/sys":               filepath.Join(a64XsysDir(t), "unix/zerrors_linux_arm64.go"),
	} {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		c, ok := a64TypeCheck(t, "arm64", path).Scope().Lookup("O_TMPFILE").(*types.Const)
		if !ok {
			t.Errorf("%s: no O_TMPFILE", src)
		} else if got, _ := constant.Uint64Val(c.Val()); got != 0o20000000|a64ODirectory {
			t.Errorf("%s: O_TMPFILE = %#o, want __O_TMPFILE|O_DIRECTORY = %#o", src, got, 0o20000000|a64ODirectory)
		}
	}
}

// TestLayoutThisArch checks the building architecture's own statSize and epollEventSize (what
// the portable kernel uses) against its syscall package's definitions.
func TestLayoutThisArch(t *testing.T) {
	arch := runtime.GOARCH
	path := filepath.Join(a64Goroot(t), "src/syscall/ztypes_linux_"+arch+".go")
	pkg := a64TypeCheck(t, arch, path)
	if got := a64StructLayout(t, pkg, arch, "Stat_t").size; got != statSize {
		t.Errorf("%s: sizeof(struct stat) is %d, statSize %d", arch, got, statSize)
	}
	if got := a64StructLayout(t, pkg, arch, "EpollEvent").size; got != epollEventSize {
		t.Errorf("%s: sizeof(struct epoll_event) is %d, epollEventSize %d", arch, got, epollEventSize)
	}
}

// The signal frame, against what the Go runtime's handler reads (runtime/defs_linux_arm64.go,
// signal_linux_arm64.go), and the user_pt_regs order of syscall's PtraceRegs.
func TestArm64LayoutSignalFrame(t *testing.T) {
	root := a64Goroot(t)
	rt := a64TypeCheck(t, "arm64", filepath.Join(root, "src/runtime/defs_linux_arm64.go"))
	sc := a64StructLayout(t, rt, "arm64", "sigcontext")
	sc.want(t, "runtime sigcontext", a64SigcontextSize,
		map[string]int64{"fault_address": a64ScFaultAddress, "regs": a64ScRegs, "sp": a64ScSP,
			"pc": a64ScPC, "pstate": a64ScPstate, "__reserved": a64ScReserved},
		map[string]int64{"regs": 31 * 8, "__reserved": a64ScReservedSize})
	uc := a64StructLayout(t, rt, "arm64", "ucontext")
	uc.want(t, "runtime ucontext", a64UcontextSize,
		map[string]int64{"uc_flags": a64UcFlags, "uc_link": a64UcLink, "uc_stack": a64UcStack,
			"uc_sigmask": a64UcSigmask, "uc_mcontext": a64UcMcontext},
		map[string]int64{"uc_sigmask": 8})
	// stack_t as deliverSignal writes uc_stack: ss_sp, ss_flags, ss_size at 0, 8, 16.
	a64StructLayout(t, rt, "arm64", "stackt").want(t, "runtime stackt", 24,
		map[string]int64{"ss_sp": 0, "ss_flags": 8, "ss_size": 16}, nil)
	// struct sigaction of the kernel ABI, which the portable sigaction type mirrors.
	var sa sigaction
	a64StructLayout(t, rt, "arm64", "sigactiont").want(t, "runtime sigactiont", int64(unsafe.Sizeof(sa)),
		map[string]int64{"sa_handler": int64(unsafe.Offsetof(sa.handler)), "sa_flags": int64(unsafe.Offsetof(sa.flags)),
			"sa_restorer": int64(unsafe.Offsetof(sa.restorer)), "sa_mask": int64(unsafe.Offsetof(sa.mask))}, nil)

	// rt_sigframe {siginfo_t info; struct ucontext uc}: siginfo_t is 128 bytes (x/sys's Siginfo;
	// syscall has none).
	for src, path := range a64UnixTypes(t) {
		if src == "syscall" {
			continue
		}
		if got := a64StructLayout(t, a64TypeCheck(t, "arm64", path), "arm64", "Siginfo").size; got != a64SigframeUc {
			t.Errorf("%s: sizeof(siginfo_t) %d, the ucontext is at %d", src, got, a64SigframeUc)
		}
	}
	if siginfoSize != a64SigframeUc || a64SigframeInfo != 0 {
		t.Errorf("siginfo %d bytes at %d, ucontext at %d", siginfoSize, a64SigframeInfo, a64SigframeUc)
	}
	if a64SigframeSize != a64SigframeUc+a64UcontextSize || a64SigframeSize%16 != 0 {
		t.Errorf("rt_sigframe: %d bytes, want %d, a multiple of 16", a64SigframeSize, a64SigframeUc+a64UcontextSize)
	}
	if a64UcontextSize != a64UcMcontext+a64SigcontextSize {
		t.Errorf("ucontext %d bytes, uc_mcontext at %d + %d", a64UcontextSize, a64UcMcontext, a64SigcontextSize)
	}

	// user_pt_regs: regs[31], sp, pc, pstate — the same order as sigcontext's after fault_address.
	pr := a64StructLayout(t, a64TypeCheck(t, "arm64", filepath.Join(root, "src/syscall/ztypes_linux_arm64.go")), "arm64", "PtraceRegs")
	pr.want(t, "syscall PtraceRegs", a64ScPstate+8-a64ScRegs,
		map[string]int64{"Regs": 0, "Sp": a64ScSP - a64ScRegs, "Pc": a64ScPC - a64ScRegs, "Pstate": a64ScPstate - a64ScRegs}, nil)
}

// The records of __reserved: the magic numbers against x/sys's (zerrors_linux_arm64.go), the
// fpsimd_context's shape, and that the frame gmpos writes fits.
func TestArm64LayoutFpsimd(t *testing.T) {
	files := map[string]string{
		"GOROOT vendor x/sys": filepath.Join(a64Goroot(t), "src/cmd/vendor/golang.org/x/sys/unix/zerrors_linux_arm64.go"),
	}
	if d := a64XsysDir(t); d != "" {
		files["x/sys "+filepath.Base(d)] = filepath.Join(d, "unix/zerrors_linux_arm64.go")
	}
	for src, path := range files {
		pkg := a64TypeCheck(t, "arm64", path)
		for name, want := range map[string]uint64{"FPSIMD_MAGIC": a64FpsimdMagic, "ESR_MAGIC": a64EsrMagic, "EXTRA_MAGIC": a64ExtraMagic} {
			c, ok := pkg.Scope().Lookup(name).(*types.Const)
			if !ok {
				t.Errorf("%s: no %s", src, name)
				continue
			}
			if v, _ := constant.Uint64Val(c.Val()); v != want {
				t.Errorf("%s: %s = %#x, abi_arm64_layout.go says %#x", src, name, v, want)
			}
		}
	}
	// struct fpsimd_context {struct _aarch64_ctx head; __u32 fpsr, fpcr; __uint128_t vregs[32]}.
	if a64FpsimdFpsr != a64CtxHeadSize || a64FpsimdFpcr != a64FpsimdFpsr+4 || a64FpsimdVregs != a64FpsimdFpcr+4 ||
		a64FpsimdSize != a64FpsimdVregs+32*16 {
		t.Errorf("fpsimd_context: fpsr %d, fpcr %d, vregs %d, size %d", a64FpsimdFpsr, a64FpsimdFpcr, a64FpsimdVregs, a64FpsimdSize)
	}
	if (a64SigframeUc+a64UcMcontext+a64ScReserved)%16 != 0 || a64FpsimdSize%16 != 0 {
		t.Error("the records are not 16-byte aligned in the frame")
	}
	if a64FpsimdSize+a64CtxHeadSize > a64ScReservedSize {
		t.Error("fpsimd_context and the end record do not fit __reserved")
	}
	// MINSIGSTKSZ leaves room for the whole frame on an alternate stack of that size.
	if a64MinSigStkSz < a64SigframeSize+a64FrameRecordSize+15 {
		t.Errorf("MINSIGSTKSZ %d cannot hold a %d-byte frame", a64MinSigStkSz, a64SigframeSize+a64FrameRecordSize)
	}
}

// a64SigframeAt: where Linux's get_sigframe puts the frame and its frame record (the same in the
// kernel versions with struct rt_sigframe {info; uc; fp; lr} and with the record outside it).
func TestArm64SigframePlacement(t *testing.T) {
	for _, top := range []uintptr{0x7fff_0000, 0x7fff_0008, 0x7fff_0001, 0x7fff_000f, 0x4000_1230} {
		frame, record := a64SigframeAt(top)
		if frame%16 != 0 || record%16 != 0 {
			t.Errorf("top %#x: frame %#x, record %#x not 16-byte aligned", top, frame, record)
		}
		if record != frame+a64SigframeSize {
			t.Errorf("top %#x: record %#x, want the frame's end %#x", top, record, frame+a64SigframeSize)
		}
		if end := record + a64FrameRecordSize; end > top || top-end >= 16 {
			t.Errorf("top %#x: the frame ends at %#x", top, end)
		}
		if old := (top - a64SigframeSize - a64FrameRecordSize) &^ 15; old != frame {
			t.Errorf("top %#x: frame %#x, Linux before 4.15 put it at %#x", top, frame, old)
		}
	}
}

// a64Record writes the head of one __reserved record at off and returns the next offset.
func a64Record(b []byte, off int, magic, size uint32) int {
	binary.LittleEndian.PutUint32(b[off:], magic)
	binary.LittleEndian.PutUint32(b[off+4:], size)
	return off + int(size)
}

func TestArm64FindFpsimd(t *testing.T) {
	var area struct {
		_ [0]uint64
		b [a64ScReservedSize]byte
	}
	base := uintptr(unsafe.Pointer(&area.b[0]))
	const sve = 0x53564501
	for _, tc := range []struct {
		name  string
		build func(b []byte)
		want  int // offset of the fpsimd_context found, -1: none or invalid
	}{
		{"fpsimd, end", func(b []byte) { a64Record(b, a64Record(b, 0, a64FpsimdMagic, a64FpsimdSize), 0, 0) }, 0},
		{"esr, fpsimd, end", func(b []byte) {
			a64Record(b, a64Record(b, a64Record(b, 0, a64EsrMagic, 16), a64FpsimdMagic, a64FpsimdSize), 0, 0)
		}, 16},
		{"fpsimd larger than its struct, end (restoreSigcontext refuses it)", func(b []byte) {
			a64Record(b, a64Record(b, 0, a64FpsimdMagic, a64FpsimdSize+16), 0, 0)
		}, 0},
		{"end only", func(b []byte) {}, -1},
		{"fpsimd twice", func(b []byte) {
			a64Record(b, a64Record(b, a64Record(b, 0, a64FpsimdMagic, a64FpsimdSize), a64FpsimdMagic, a64FpsimdSize), 0, 0)
		}, -1},
		{"fpsimd too short", func(b []byte) { a64Record(b, a64Record(b, 0, a64FpsimdMagic, a64FpsimdSize-16), 0, 0) }, -1},
		{"misaligned next record", func(b []byte) { a64Record(b, a64Record(b, 0, a64FpsimdMagic, a64FpsimdSize+8), 0, 0) }, -1},
		{"SVE record", func(b []byte) {
			a64Record(b, a64Record(b, a64Record(b, 0, a64FpsimdMagic, a64FpsimdSize), sve, 16), 0, 0)
		}, -1},
		{"end record with a size", func(b []byte) { a64Record(b, a64Record(b, 0, a64FpsimdMagic, a64FpsimdSize), 0, 16) }, -1},
		{"zero-sized record", func(b []byte) { a64Record(b, 0, a64EsrMagic, 0) }, -1},
		{"record past the area", func(b []byte) { a64Record(b, 0, a64EsrMagic, a64ScReservedSize+16) }, -1},
		{"no end record", func(b []byte) {
			off := a64Record(b, 0, a64FpsimdMagic, a64FpsimdSize)
			for off < len(b) {
				off = a64Record(b, off, a64EsrMagic, 16)
			}
		}, -1},
		{"end record last", func(b []byte) {
			off := a64Record(b, 0, a64FpsimdMagic, a64FpsimdSize)
			for off < len(b)-16 {
				off = a64Record(b, off, a64EsrMagic, 16)
			}
			a64Record(b, off, 0, 0)
		}, 0},
	} {
		clear(area.b[:])
		tc.build(area.b[:])
		got := a64FindFpsimd(base)
		want := uintptr(0)
		if tc.want >= 0 {
			want = base + uintptr(tc.want)
		}
		if got != want {
			t.Errorf("%s: a64FindFpsimd = base%+d, want base%+d", tc.name, int64(got-base), int64(want-base))
		}
	}
	runtime.KeepAlive(&area)
}

func TestArm64UserPSTATE(t *testing.T) {
	for _, tc := range []struct {
		in, out uint64
		ok      bool
	}{
		{0, 0, true},
		{a64PsrNZCV, a64PsrNZCV, true},
		{a64PsrDIT | a64PsrSSBS | a64PsrBtype | 0x60000000, a64PsrDIT | a64PsrSSBS | a64PsrBtype | 0x60000000, true},
		// Bits no user may set are dropped: IL, PAN, UAO, TCO, SS, bit 5, and everything above 31.
		{a64PsrIL | a64PsrPAN | a64PsrUAO | a64PsrTCO | a64PsrSS | 1<<5 | 1<<32 | 1<<63 | a64PsrNZCV, a64PsrNZCV, true},
		// Not EL0t with everything unmasked: the frame is bad.
		{0x5, 0, false},  // EL1h: an ERET would run the program at EL1
		{0x4, 0, false},  // EL1t
		{0x1, 0, false},  // M[0] alone
		{0x10, 0, false}, // AArch32
		{a64PsrD, 0, false},
		{a64PsrA, 0, false},
		{a64PsrI, 0, false},
		{a64PsrF, 0, false},
	} {
		out, ok := a64UserPSTATE(tc.in)
		if out != tc.out || ok != tc.ok {
			t.Errorf("a64UserPSTATE(%#x) = %#x, %v; want %#x, %v", tc.in, out, ok, tc.out, tc.ok)
		}
	}
}

// The HWCAP bits against Go's own readers of AT_HWCAP: internal/cpu and golang.org/x/sys/cpu;
// each constant's name, lower-cased, is also the bit's /proc/cpuinfo name.
func TestArm64HwcapBits(t *testing.T) {
	mine := map[string]uint64{
		"FP": a64HwcapFP, "ASIMD": a64HwcapASIMD, "EVTSTRM": a64HwcapEVTSTRM, "AES": a64HwcapAES,
		"PMULL": a64HwcapPMULL, "SHA1": a64HwcapSHA1, "SHA2": a64HwcapSHA2, "CRC32": a64HwcapCRC32,
		"ATOMICS": a64HwcapATOMICS, "FPHP": a64HwcapFPHP, "ASIMDHP": a64HwcapASIMDHP, "CPUID": a64HwcapCPUID,
		"ASIMDRDM": a64HwcapASIMDRDM, "JSCVT": a64HwcapJSCVT, "FCMA": a64HwcapFCMA, "LRCPC": a64HwcapLRCPC,
		"DCPOP": a64HwcapDCPOP, "SHA3": a64HwcapSHA3, "SM3": a64HwcapSM3, "SM4": a64HwcapSM4,
		"ASIMDDP": a64HwcapASIMDDP, "SHA512": a64HwcapSHA512, "SVE": a64HwcapSVE, "ASIMDFHM": a64HwcapASIMDFHM,
		"DIT": a64HwcapDIT,
	}
	mine2 := map[string]uint64{"SVE2": a64Hwcap2SVE2, "I8MM": a64Hwcap2I8MM}
	files := map[string]string{"internal/cpu": filepath.Join(a64Goroot(t), "src/internal/cpu/cpu_arm64_hwcap.go")}
	if d := a64XsysDir(t); d != "" {
		files["x/sys/cpu"] = filepath.Join(d, "cpu/cpu_linux_arm64.go")
	}
	for src, path := range files {
		pkg := a64TypeCheck(t, "arm64", path)
		seen := 0
		for _, name := range pkg.Scope().Names() {
			c, ok := pkg.Scope().Lookup(name).(*types.Const)
			if !ok {
				continue
			}
			table, names, feature := mine, a64HwcapNames, strings.TrimPrefix(name, "hwcap_")
			if strings.HasPrefix(name, "hwcap2_") {
				table, names, feature = mine2, a64Hwcap2Names, strings.TrimPrefix(name, "hwcap2_")
			} else if !strings.HasPrefix(name, "hwcap_") {
				continue
			}
			v, _ := constant.Uint64Val(c.Val())
			seen++
			if want, ok := table[feature]; !ok {
				t.Errorf("%s: %s = %#x has no a64Hwcap constant", src, name, v)
			} else if v != want {
				t.Errorf("%s: %s = %#x, abi_arm64_layout.go says %#x", src, name, v, want)
			}
			if got := a64Word(names, bits.TrailingZeros64(v)); got != strings.ToLower(feature) {
				t.Errorf("%s: bit %d is %q in /proc/cpuinfo's names, %s says %q", src, bits.TrailingZeros64(v), got, name, strings.ToLower(feature))
			}
		}
		if seen < 10 {
			t.Errorf("%s: only %d hwcap constants found", src, seen)
		}
	}
	if n := len(strings.Fields(a64HwcapNames)); n != 32 {
		t.Errorf("a64HwcapNames has %d names, want 32 (AT_HWCAP bits 0..31)", n)
	}
	if got := a64Word(a64Hwcap2Names, 16); got != "rng" || a64Hwcap2RNG != 1<<16 {
		t.Errorf("HWCAP2 bit 16 is %q", got)
	}
	if a64Word("a b", 2) != "" || a64Word("a b", 1) != "b" || a64Word("", 0) != "" {
		t.Error("a64Word")
	}
}

func TestArm64Hwcaps(t *testing.T) {
	features := func(hw, hw2 uint64) string {
		var s []string
		for i := 0; i < 64; i++ {
			if hw&(1<<i) != 0 {
				s = append(s, a64Word(a64HwcapNames, i))
			}
		}
		for i := 0; i < 64; i++ {
			if hw2&(1<<i) != 0 {
				s = append(s, a64Word(a64Hwcap2Names, i))
			}
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct {
		name               string
		pfr0, isar0, isar1 uint64
		want               string // Features in /proc/cpuinfo order
	}{
		// ID registers zero: FP and AdvSIMD are signed fields, 0 means present.
		{"zero", 0, 0, 0, "fp asimd"},
		{"no FP/SIMD", 0xff << 16, 0, 0, ""},
		// QEMU's cortex-a72 (with the crypto extension). Linux adds evtstrm and cpuid.
		{"cortex-a72", 0x2222, 0x11120, 0, "fp asimd aes pmull sha1 sha2 crc32"},
		// The Raspberry Pi 4's BCM2711: no crypto extension (Linux: "fp asimd evtstrm crc32 cpuid").
		{"bcm2711", 0x2222, 0x10000, 0, "fp asimd crc32"},
		// Neoverse N1 (its TRM's ID values). Linux also lists evtstrm, cpuid, dcpop and ssbs.
		{"neoverse-n1", 0x1100000010111112, 0x0000100010211120, 0x0000000000100001,
			"fp asimd aes pmull sha1 sha2 crc32 atomics fphp asimdhp asimdrdm lrcpc asimddp"},
		// Every field at 2, then at 1: the extended features, and never a bit gmpos cannot honour.
		{"all 2", 0x2222222222222222, 0x2222222222222222, 0x2222222222222222,
			"fp asimd aes pmull sha1 sha2 crc32 atomics fphp asimdhp asimdrdm jscvt fcma lrcpc sha3 sm3 sm4 " +
				"asimddp sha512 asimdfhm dit ilrcpc flagm sb flagm2 frint i8mm bf16 dgh rng"},
		{"all 1", 0x1111111111111111, 0x1111111111111111, 0x1111111111111111,
			"fp asimd aes sha1 sha2 crc32 fphp asimdhp asimdrdm jscvt fcma lrcpc sha3 sm3 sm4 " +
				"asimddp asimdfhm dit flagm sb frint i8mm bf16 dgh rng"},
	} {
		hw, hw2 := a64Hwcaps(tc.pfr0, tc.isar0, tc.isar1)
		if got := features(hw, hw2); got != tc.want {
			t.Errorf("%s: Features %q, want %q", tc.name, got, tc.want)
		}
		const never = a64HwcapCPUID | a64HwcapSVE | a64HwcapEVTSTRM | a64HwcapDCPOP | a64HwcapPACA | a64HwcapPACG |
			a64HwcapSSBS | a64HwcapUSCAT
		if hw&never != 0 || hw2&(a64Hwcap2DCPODP|a64Hwcap2SVE2) != 0 {
			t.Errorf("%s: HWCAP %#x, HWCAP2 %#x promise what gmpos does not provide", tc.name, hw, hw2)
		}
	}
}

// zsysnum checks the generated numbers: mksysnum.go regenerates both files byte for byte, the
// Go runtime's own numbers (runtime/sys_linux_<arch>.s) agree, every case of the dispatch
// switch is distinct on arm64 (a duplicate would not compile there), and the calls the generic
// table lacks are negative.
func TestArm64SysnumGenerated(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("mksysnum.go")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mksysnum.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "mksysnum.go", "amd64", "arm64")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mksysnum: %v\n%s", err, out)
	}
	for _, f := range []string{"zsysnum_amd64.go", "zsysnum_arm64.go"} {
		want, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./kernel (mksysnum.go amd64 arm64)", f)
		}
	}
	// Where two names share a number, sysNames has Linux's own (x/sys's): strace says newfstatat.
	if b, _ := os.ReadFile("zsysnum_arm64.go"); !regexp.MustCompile(`\t79: +"newfstatat",`).Match(b) {
		t.Error(`zsysnum_arm64.go: sysNames[79] is not "newfstatat"`)
	}
}

// a64Sysnums returns the nr constants of zsysnum_<arch>.go and its sysNames' length.
func a64Sysnums(t *testing.T, arch string) map[string]int64 {
	t.Helper()
	pkg := a64TypeCheck(t, arch, "zsysnum_"+arch+".go")
	m := map[string]int64{}
	for _, name := range pkg.Scope().Names() {
		if c, ok := pkg.Scope().Lookup(name).(*types.Const); ok {
			m[name], _ = constant.Int64Val(c.Val())
		}
	}
	if len(m) < 300 {
		t.Fatalf("zsysnum_%s.go: only %d constants", arch, len(m))
	}
	return m
}

// a64NrName turns "rt_sigreturn" into "nrRtSigreturn", as mksysnum.go names the constants.
func a64NrName(name string) string {
	var b strings.Builder
	b.WriteString("nr")
	for _, part := range strings.Split(strings.ToLower(name), "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

func TestArm64SysnumRuntime(t *testing.T) {
	def := regexp.MustCompile(`^#define\s+SYS_(\w+)\s+(\d+)`)
	for _, arch := range []string{"amd64", "arm64"} {
		nums := a64Sysnums(t, arch)
		f, err := os.Open(filepath.Join(a64Goroot(t), "src/runtime/sys_linux_"+arch+".s"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		s := bufio.NewScanner(f)
		for s.Scan() {
			m := def.FindStringSubmatch(s.Text())
			if m == nil {
				continue
			}
			n++
			want, _ := strconv.ParseInt(m[2], 10, 64)
			got, ok := nums[a64NrName(m[1])]
			if !ok { // the runtime's own spelling: amd64 has SYS_setittimer
				t.Logf("%s: the runtime's SYS_%s is no Linux name", arch, m[1])
				continue
			}
			if got != want {
				t.Errorf("%s: the runtime's SYS_%s is %d, zsysnum_%s.go's %s is %d", arch, m[1], want, arch, a64NrName(m[1]), got)
			}
		}
		f.Close()
		if n < 20 {
			t.Errorf("%s: only %d SYS_ numbers in the runtime", arch, n)
		}
	}
}

func TestArm64SysnumDispatch(t *testing.T) {
	nums := a64Sysnums(t, "arm64")
	nums["nrGmposInfo"] = nrGmposInfo
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "syscall.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]string{}
	cases := 0
	ast.Inspect(f, func(n ast.Node) bool {
		fn, ok := n.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "dispatch" {
			return true
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			cc, ok := n.(*ast.CaseClause)
			if !ok {
				return true
			}
			for _, e := range cc.List {
				var name string
				var v int64
				switch e := e.(type) {
				case *ast.Ident:
					var ok bool
					if v, ok = nums[e.Name]; !ok {
						t.Errorf("%s: case %s is not a zsysnum_arm64.go constant", fset.Position(e.Pos()), e.Name)
						continue
					}
					name = e.Name
				case *ast.SelectorExpr:
					if x, ok := e.X.(*ast.Ident); !ok || x.Name != "netabi" || e.Sel.Name != "NrGmposNet" {
						t.Errorf("%s: unexpected case expression", fset.Position(e.Pos()))
						continue
					}
					name, v = "netabi.NrGmposNet", netabi.NrGmposNet
				default:
					continue
				}
				cases++
				if other, dup := seen[v]; dup {
					t.Errorf("on arm64 %s and %s are both %d: a duplicate case", other, name, v)
				}
				seen[v] = name
			}
			return true
		})
		return false
	})
	if cases < 100 {
		t.Fatalf("only %d cases found in dispatch", cases)
	}
	// The generic table has no open, stat, poll, pipe, dup2, fork, vfork, epoll_wait, time, alarm,
	// arch_prctl: negative, so never matched. Go's runtime calls the *at, 2 and p variants.
	for _, name := range []string{"nrOpen", "nrStat", "nrLstat", "nrPoll", "nrPipe", "nrDup2", "nrFork",
		"nrVfork", "nrEpollWait", "nrEpollCreate", "nrTime", "nrAlarm", "nrArchPrctl", "nrAccess", "nrReadlink"} {
		if nums[name] >= 0 {
			t.Errorf("%s = %d on arm64, which has no such call", name, nums[name])
		}
	}
	for name, want := range map[string]int64{"nrOpenat": 56, "nrNewfstatat": 79, "nrFstat": 80,
		"nrEpollPwait": 22, "nrPipe2": 59, "nrDup3": 24, "nrClone": 220, "nrRtSigreturn": 139, "nrExitGroup": 94} {
		if nums[name] != want {
			t.Errorf("%s = %d on arm64, want %d", name, nums[name], want)
		}
	}
}
