// The initial process image: argc, argv, envp and the auxiliary vector on the first stack.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
)

// The initial user stack: an 8 MiB demand-zero VMA below the top of the user half, holding the
// System V process image the Go runtime reads at its entry (_rt0_<arch>_linux;
// docs/runtime-contract.md §1.3, §1.4):
//
//	SP → argc, argv[0..argc-1], NULL, envp..., NULL, auxv (tag, value)..., AT_NULL
//	     ... strings (argv, envp) and the 16 AT_RANDOM bytes higher up
const (
	userStackTop  = 0x7fff_fff0_0000
	userStackSize = 8 << 20
)

// Auxiliary vector tags (Linux include/uapi/linux/auxvec.h; System V ABI AMD64 supplement
// §3.4.3). The architecture adds its own (abi_<arch>.go archAuxv).
const (
	atNull   = 0
	atPagesz = 6
	atClktck = 17
	atHwcap  = 16
	atSecure = 23
	atRandom = 25
	atExecfn = 31

	atSysinfoEhdr = 33 // the vDSO's ELF header (vdso.go)
)

// userWriter appends words and strings to the stack image, growing down from the top.
type userWriter struct{ sp uintptr }

func (w *userWriter) bytes(b []byte) uintptr {
	w.sp -= uintptr(len(b)) + 1
	dst := w.sp
	for i := range b {
		*(*byte)(ptr(dst + uintptr(i))) = b[i]
	}
	*(*byte)(ptr(dst + uintptr(len(b)))) = 0
	return dst
}

func (w *userWriter) word(v uint64) {
	w.sp -= 8
	*(*uint64)(ptr(w.sp)) = v
}

// buildUserStack maps the stack VMA, writes the process image and returns the initial SP.
func buildUserStack() (uintptr, bool) {
	base := uintptr(userStackTop - userStackSize)
	if mm.Space.RegisterFixed(base, userStackSize, mm.PROT_READ|mm.PROT_WRITE) != mm.OK {
		return 0, false
	}
	// The image spans at most a few pages at the top (up to a few MiB with an argument
	// module); fault them in before the kernel writes.
	need := uintptr(64 << 10)
	if bootArgs.n != 0 {
		need = max(need, (argsImageSize()+mm.PageSize-1)&^(mm.PageSize-1))
	}
	if !mm.Space.UserRange(userStackTop-need, need, true) {
		return 0, false
	}
	var random [16]byte
	randomBytes(&random)
	if bootArgs.n != 0 {
		return writeModuleImage(userStackTop, &random), true
	}
	return writeProcessImage(userStackTop, &random), true
}

// writeProcessImage writes argv/envp (from cmd), the AT_RANDOM bytes and the auxiliary vector
// below top and returns the initial SP. The caller guarantees the memory is writable.
func writeProcessImage(top uintptr, random *[16]byte) uintptr {
	randomAddr := putRandom(top, random)
	w := userWriter{sp: randomAddr}

	var argv [maxArgs + 1]uintptr
	var envp [maxEnv + 1]uintptr
	if cmd.argv0.n > 0 {
		argv[0] = w.bytes(cmd.argv0.bytes())
	} else {
		argv[0] = w.bytes([]byte("gmpos"))
	}
	argc := 1
	for i := 0; i < cmd.nargs; i++ {
		argv[argc] = w.bytes(cmd.args[i].bytes())
		argc++
	}
	nenv := 0
	for i := 0; i < cmd.nenv; i++ {
		envp[nenv] = w.bytes(cmd.env[i].bytes())
		nenv++
	}
	w.sp &^= 15

	aux, naux := auxVector(randomAddr, argv[0], vdsoState.ehdr)
	return pushVectors(&w, argv[:argc], envp[:nenv], aux[:naux])
}

// pushVectors writes below w.sp (16-byte aligned) the words a process finds at its entry SP
// (System V ABI AMD64 §3.4.1, and arm64's the same): argc, argv's pointers and NULL, envp's and
// NULL, the auxiliary vector and AT_NULL — padded first so that the final SP, at argc, is 16-byte
// aligned, as the ABI wants at process entry. It returns that SP. Boot (writeProcessImage; the
// argument module's image, args_module.go, lays its block out itself) and execve (exec.go).
func pushVectors(w *userWriter, argv, envp []uintptr, aux [][2]uint64) uintptr {
	if words := 1 + len(argv) + 1 + len(envp) + 1 + 2*(len(aux)+1); words%2 != 0 {
		w.word(0)
	}
	w.word(0) // AT_NULL value
	w.word(atNull)
	for i := len(aux) - 1; i >= 0; i-- {
		w.word(aux[i][1])
		w.word(aux[i][0])
	}
	w.word(0)
	for i := len(envp) - 1; i >= 0; i-- {
		w.word(uint64(envp[i]))
	}
	w.word(0)
	for i := len(argv) - 1; i >= 0; i-- {
		w.word(uint64(argv[i]))
	}
	w.word(uint64(len(argv)))
	return w.sp
}

// randomBytes fills the 16 AT_RANDOM bytes (boot's stack, execve's).
func randomBytes(random *[16]byte) {
	for i := 0; i < 16; i += 8 {
		v := entropy()
		for j := 0; j < 8; j++ {
			random[i+j] = byte(v >> (8 * j))
		}
	}
}

// entropy returns 64 random bits from the CPU's random source (x86: RDSEED/RDRAND), or a
// cycle-counter-derived value on CPUs without one (documented weakness: only the AT_RANDOM seed
// and getrandom use it, and QEMU's -cpu max has both).
func entropy() uint64 {
	if v, ok := arch.Random(); ok {
		return v
	}
	x := arch.Cycles()
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}

// auxVector is the auxiliary vector (without AT_NULL): the page size, the clock tick, where the
// AT_RANDOM bytes are, AT_EXECFN, the vDSO at ehdr (0: none), and the architecture's own entries.
func auxVector(randomAddr, execfn, ehdr uintptr) (aux [10][2]uint64, n int) {
	n = copy(aux[:], [][2]uint64{
		{atPagesz, mm.PageSize},
		{atClktck, 100},
		{atRandom, uint64(randomAddr)},
		{atSecure, 0},
		{atExecfn, uint64(execfn)},
	})
	if ehdr != 0 {
		aux[n] = [2]uint64{atSysinfoEhdr, uint64(ehdr)}
		n++
	}
	var extra [2][2]uint64
	n += copy(aux[n:], extra[:archAuxv(&extra)])
	return aux, n
}

// putRandom writes the 16 AT_RANDOM bytes just below top, where both process images start, and
// returns their address.
func putRandom(top uintptr, random *[16]byte) uintptr {
	at := top - 16
	copy(userBytes(at, 16), random[:])
	return at
}
