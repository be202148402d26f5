// Package elf decodes the headers of an executable that execve loads: the ELF header and the
// program headers (System V ABI, "ELF-64 Object File Format" §"File header", §"Program
// header"). It checks everything the loader relies on — class, byte order, machine, type, the
// program headers' place in the file, every loadable segment's sizes, alignment and place in
// the region the caller allows, the entry point inside an executable segment — so that a
// malformed or hostile file is an error with a reason, never a wrong mapping.
//
// The kernel's execve (kernel/exec.go) calls Parse in trap context: Parse allocates nothing,
// stores no pointers and returns its result by value (a fixed array of segments). The standard
// library's debug/elf does far more and allocates, so this small decoder is the kernel's own.
//
// Who may call what: Parse is a pure function of its arguments.
package elf
