// The argument module: argv and envp from the runner, whole, instead of on the command line.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/mm"
)

// The runner hands the program's arguments and environment to the kernel as the loader's first
// module (QEMU -initrd with a Multiboot kernel; docs/contract.md, "Argument module"), because the
// command line holds 4 KiB and the kernel's table of it 64 of each: a program gets what execve
// would give it — any number of strings, empty ones, any byte but NUL, up to Linux's limits
// (128 KiB a string, 2 MiB in all: the runner checks them). The layout:
//
//	"GMPOSARG"  8 bytes
//	argc        uint32, little-endian, at least 1 (argv[0])
//	envc        uint32
//	strings     argc + envc NUL-terminated strings, argv first, and nothing after
//
// The kernel reads it once, at boot, from the direct map, checks it whole (argsModule: a
// malformed module stops the boot with a reason, it is not half-used) and copies the strings to
// the initial stack; the module's pages stay out of the frame allocator.
const (
	argsMagic     = "GMPOSARG"
	argsHeader    = 16
	maxArgsModule = 4 << 20 // twice Linux's ARG_MAX: the runner refuses more
)

// argsModule checks m and returns the counts and the strings block.
func argsModule(m []byte) (argc, envc int, strs []byte, ok bool) {
	if len(m) < argsHeader || len(m) > maxArgsModule || string(m[:8]) != argsMagic {
		return 0, 0, nil, false
	}
	argc, envc = int(le32(m[8:])), int(le32(m[12:]))
	strs = m[argsHeader:]
	if argc < 1 || argc > len(strs) || envc > len(strs)-argc || strs[len(strs)-1] != 0 {
		return 0, 0, nil, false
	}
	n := 0
	for _, c := range strs {
		if c == 0 {
			n++
		}
	}
	if n != argc+envc {
		return 0, 0, nil, false
	}
	return argc, envc, strs, true
}

// bootArgs is the argument module as the kernel found it at boot: n 0 when the loader gave none
// (the command line's arguments are used). The strings' address, not a slice: a kernel global
// holds no Go pointer (doc.go, Contexts). Immutable after boot.
var bootArgs struct {
	argc, envc int
	strs, n    uintptr // the strings block, in the direct map
}

// moduleStrings is bootArgs' strings block.
func moduleStrings() []byte { return userBytes(bootArgs.strs, bootArgs.n) }

// readArgsModule finds and checks the module; false with a reason if it is malformed. Boot,
// after the direct map is in place.
func readArgsModule() (ok bool, why string) {
	pa, n := board.BootModule(moduleArgs)
	if n == 0 {
		return true, ""
	}
	if n > maxArgsModule {
		return false, "the argument module is larger than 4 MiB"
	}
	m := userBytes(mm.PhysToVirt(pa), n)
	argc, envc, strs, ok := argsModule(m)
	if !ok {
		return false, "the argument module is malformed"
	}
	bootArgs.argc, bootArgs.envc = argc, envc
	bootArgs.strs, bootArgs.n = mm.PhysToVirt(pa)+argsHeader, uintptr(len(strs))
	return true, ""
}

// argsImageSize is how many bytes of stack the module's process image takes (strings, pointers,
// auxiliary vector, AT_RANDOM, alignment).
func argsImageSize() uintptr {
	return bootArgs.n + 8*uintptr(bootArgs.argc+bootArgs.envc+3+2*16) + 64
}

// writeModuleImage is writeProcessImage for the module's strings: they are copied as one block,
// and argv/envp point into it. It writes upwards from the final SP.
func writeModuleImage(top uintptr, random *[16]byte) uintptr {
	randomAddr := putRandom(top, random)
	sp := randomAddr
	strs := moduleStrings()
	sp -= uintptr(len(strs))
	block := sp
	copy(userBytes(block, uintptr(len(strs))), strs)

	aux, naux := auxVector(randomAddr, block, vdsoState.ehdr)
	words := uintptr(1 + bootArgs.argc + 1 + bootArgs.envc + 1 + 2*(naux+1))
	sp = (sp - 8*words) &^ 15
	p := sp
	put := func(v uint64) {
		*(*uint64)(ptr(p)) = v
		p += 8
	}
	put(uint64(bootArgs.argc))
	off := 0
	next := func() uint64 { // the address of the next string in the block
		at := block + uintptr(off)
		for strs[off] != 0 {
			off++
		}
		off++
		return uint64(at)
	}
	for range bootArgs.argc {
		put(next())
	}
	put(0) // the end of argv
	for range bootArgs.envc {
		put(next())
	}
	put(0) // the end of envp
	for i := 0; i < naux; i++ {
		put(aux[i][0])
		put(aux[i][1])
	}
	put(atNull)
	put(0)
	return sp
}
