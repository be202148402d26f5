// Command qemu builds an unmodified Go main package with the gmpos kernel
// linked in, boots it under QEMU and exits with the guest's exit code.
//
//	go run ./qemu run [flags] PKG [-- ARGS...]
//	go run ./qemu test [flags] PKG [-- TESTFLAGS]
//	go run ./qemu build [-o IMAGE] [-v] PKG
//
// test builds the package's tests (go test -c) with the kernel imported by a generated file in
// the external test package, boots them, passes go test's flags (-run, -short, -v, ...) as
// -test.* and ends with go test's "ok" or "FAIL" line and the binary's status.
//
// PKG is a directory, one or more .go files of one directory, or an import
// path gmpos/...: a package of this module (./examples/demo), files outside
// any module ($(go env GOROOT)/test/chan/sieve1.go), or a main package of
// another module (its go.mod is honoured; gmpos is added with a temporary
// go.work). The program is not modified: the kernel import is injected with
// go build -overlay. See package gmpos/qemu/runner and README.md.
//
// The program's environment (env.go) is assembled here: defaults, -env-file, -e, and the Go
// runtime's variables from the host, which the command keeps for the guest alone by
// re-executing itself without them before anything else runs.
//
// -arch arm64 (or -machine virt) builds for GOARCH=arm64 and boots QEMU's
// arm64 virt machine instead (docs/contract.md, "arm64 virt").
//
// Exit status: the guest's exit status (0..255); 101 kernel panic; 124
// timeout; 125 the runner or QEMU failed, or the guest stopped without an
// exit record; 130 interrupted (Ctrl-C). `go run` turns every non-zero
// status into 1, so scripts use the built binary (make builds build/gmpos).
package main
