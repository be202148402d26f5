package kernel

import "unsafe"

// ptr turns a kernel or user virtual address into an unsafe.Pointer. The addresses the kernel
// dereferences (user memory checked by mm.UserRange, device registers, loader structures) are never
// Go heap objects, so the garbage collector need not — and must not — see them as pointers; the
// double conversion keeps go vet's unsafeptr check quiet about a deliberate integer→pointer cast.
//
//go:nosplit
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// ptrOf returns the address of a byte in a kernel table.
//
//go:nosplit
func ptrOf(b *byte) uintptr { return uintptr(unsafe.Pointer(b)) }
