package amd64

import (
	"unsafe"

	"gmpos/drivers/uart"
)

// Multiboot hand-off, copied here by entry64 from the fixed addresses entry32 used.
var (
	mbMagic uint32
	mbInfo  uint32
)

func entry32()
func entry64()

// kmain is the first Go code. It runs on the boot stack, interrupts off, before the Go runtime.
func kmain() {
	c := &cpus[0]
	c.setKernelStack(uintptr(unsafe.Pointer(&bootStack[0])), uintptr(unsafe.Pointer(&bootStack[0]))+uintptr(len(bootStack)))
	uart.Init()
	uart.WriteString(&uart.Stdout, "\x1b]gmpos-start\x07")
	uart.WriteString(&uart.Control, "entry\n")
	uart.WriteString(&uart.Stdout, "hello from 64-bit Go\n")
	outb(0xf4, 0)
}
