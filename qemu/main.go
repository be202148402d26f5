// Command qemu builds an unmodified Go program with the gmpos kernel and boots it.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gmpos/qemu/runner"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

func usage() {
	fmt.Fprint(os.Stderr, `usage:
  go run ./qemu run [flags] PKG [-- ARGS...]   build PKG with the kernel and boot it
  go run ./qemu test [flags] PKG [-- TESTFLAGS] run a package's own tests in the guest
                                               (standard library or gmpos packages; -run,
                                               -short, -v... as go test takes them)
  go run ./qemu build [-arch A] [-o IMAGE] [-v] PKG
                                               only build the bootable image
  go run ./qemu image -board rpi3|rpi4 -o SD.IMG [flags] PKG [-- ARGS...]
                                               write a Raspberry Pi SD card image

Run "go run ./qemu run -h" for the flags.
Exit status of run: guest status; 101 kernel panic; 124 timeout; 125 runner/QEMU failure.
`)
}

func main() {
	shedRuntimeEnv()
	if len(os.Args) < 2 {
		usage()
		os.Exit(runner.ExitRunnerError)
	}
	switch os.Args[1] {
	case "run":
		os.Exit(run(os.Args[2:]))
	case "test":
		os.Exit(runTests(os.Args[2:]))
	case "build":
		os.Exit(build(os.Args[2:]))
	case "image":
		os.Exit(sdImage(os.Args[2:]))
	case "-h", "-help", "--help", "help":
		usage()
		os.Exit(0)
	default:
		fmt.Fprintf(os.Stderr, "gmpos: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(runner.ExitRunnerError)
	}
}

// splitArgs separates PKG arguments from the guest's ARGS at "--".
func splitArgs(rest []string) (pkg, args []string) {
	for i, a := range rest {
		if a == "--" {
			return rest[:i], rest[i+1:]
		}
	}
	return rest, nil
}

func run(argv []string) int { return runGuest(argv, false) }

// runTests is `gmpos test [flags] PKG [-- test flags]`: the package's own tests in the guest.
// The flags are run's; the test flags are go test's (-run, -short, -v, ...), given to the test
// binary with go test's -test. prefix. It ends as go test does: "ok" or "FAIL" with the package
// and the time, and the test binary's status.
func runTests(argv []string) int { return runGuest(argv, true) }

// testFlags are the go test flags that the test binary takes as -test.NAME.
var testFlags = map[string]bool{"run": true, "skip": true, "short": true, "v": true, "count": true,
	"bench": true, "benchtime": true, "benchmem": true, "cpu": true, "failfast": true, "list": true,
	"timeout": true, "parallel": true, "shuffle": true, "fullpath": true}

// testArgs prefixes go test's flags with "test." for the test binary.
func testArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if name, ok := strings.CutPrefix(a, "-"); ok {
			name = strings.TrimPrefix(name, "-")
			base, _, _ := strings.Cut(name, "=")
			if testFlags[base] {
				out[i] = "-test." + name
			}
		}
	}
	return out
}

func runGuest(argv []string, test bool) int {
	cfg := runner.DefaultConfig()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.IntVar(&cfg.SMP, "smp", 1, "number of virtual CPUs")
	fs.StringVar(&cfg.Mem, "m", "auto", "guest RAM (QEMU -m syntax: 512M, 2G), or auto: a quarter of the host's available memory, 1G to 8G. A program that needs more ends with status 137 and \"out of memory\" on stderr")
	timeout := fs.Duration("timeout", 0, "kill QEMU after this long and exit 124 (0: no limit; default 5m, or none with -gdb)")
	fs.StringVar(&cfg.Accel, "accel", "tcg", "accelerator: tcg or kvm (kvm adds -cpu host,-arch-capabilities)")
	arch := fs.String("arch", "", "guest architecture: amd64 or arm64 (default: the -machine's, else amd64)")
	machine := fs.String("machine", "", "machine type: q35 or pc (amd64), virt or virt,gic-version=3, raspi3b or raspi4b (arm64) (default: q35 for amd64, virt for arm64)")
	fs.StringVar(&cfg.Machine.Firmware, "firmware", "qboot", "firmware (amd64): qboot (fast: loads the kernel and jumps) or seabios (QEMU's default BIOS)")
	fs.StringVar(&cfg.Machine.Plugin, "plugin", "", "load a QEMU TCG `plugin` (.so), e.g. qemu/tbprof's guest instruction counter")
	fs.BoolVar(&cfg.Verbose, "v", false, "print the build and QEMU commands and boot timings")
	stats := fs.Bool("stats", false, "print build time and boot timings (QEMU start → kernel entry → first output) at exit")
	var kopts, envVars, envFiles multiFlag
	fs.Var(&kopts, "kopt", "kernel option KEY=VALUE (repeatable), e.g. sched=gmp, klog=1")
	fs.Var(&envVars, "e", "set the program's environment variable `KEY=VALUE` (repeatable; KEY alone: the host's value). "+
		"The program starts with PATH="+runner.DefaultPath+", HOME=/, the host's TERM, and the host's "+
		strings.Join(runner.RuntimeEnv, ", ")+" when set: those reach the program only, not the runner or go build")
	fs.Var(&envFiles, "env-file", "read environment variables from `FILE`, one KEY=VALUE per line (# comments; repeatable; -e wins)")
	fs.BoolVar(&cfg.GDB, "gdb", false, "start QEMU with -s -S and wait for gdb on :1234")
	fs.StringVar(&cfg.KeepDir, "keep", "", "keep the ELF and boot image in this directory")
	netMode := fs.String("net", "auto", "network: user (a virtio-net NIC on QEMU user networking), none, or auto (user if the program imports net)")
	fs.Func("hostfwd", "forward TCP `HOSTPORT:GUESTPORT` from 127.0.0.1 on the host into the guest (repeatable; implies -net user)", func(s string) error {
		f, err := runner.ParseHostFwd(s)
		if err == nil {
			cfg.Net.HostFwd = append(cfg.Net.HostFwd, f)
		}
		return err
	})
	fs.Func("netinject", "for tests: deliver each UDP datagram sent to `IPv4:PORT` to the guest's NIC as one raw Ethernet frame (implies -net user)", func(s string) error {
		_, err := runner.ParseInject(s)
		cfg.Net.Inject = s
		return err
	})
	fs.Func("fs", "copy a host directory's files, directories and symbolic links into the guest's root file system when it boots: "+
		"`HOSTDIR[:GUESTDIR]`, GUESTDIR defaulting to HOSTDIR's absolute path; repeatable, a later -fs winning a path both have. The program "+
		"starts in the copy of the current directory if that is inside a HOSTDIR, else in / (test: in the package's directory, always copied)", func(s string) error {
		m, err := runner.ParseFS(s)
		if err == nil {
			cfg.FS = append(cfg.FS, m)
		}
		return err
	})
	fs.Func("share", "share a host directory with the program, read and write, over virtio-9p: `HOSTDIR[:GUESTDIR]`, GUESTDIR "+
		"defaulting to HOSTDIR's absolute path; what the program writes (and closes or fsyncs) is in HOSTDIR when gmpos returns. "+
		"Repeatable (4 at most). Files are created as your user; relative symbolic links inside a share are followed, absolute ones not", func(s string) error {
		sh, err := runner.ParseShare(s)
		if err == nil {
			cfg.Shares = append(cfg.Shares, sh)
		}
		return err
	})

	fs.StringVar(&cfg.Net.Pcap, "pcap", "", "record the NIC's frames both ways into this pcap `FILE` (tcpdump -r, Wireshark; implies -net user)")
	grace := fs.Duration("grace", 5*time.Second, "after a forwarded Ctrl-C or SIGTERM, stop QEMU (status 130) if the program has not exited within this long (0: wait)")
	traceFile := fs.String("trace", "", "record the kernel scheduler's events (kernel option trace=1) and write a Perfetto/Chrome timeline of the cores to this JSON file")
	fs.StringVar(&cfg.Profile, "profile", "", "sample every core (kernel option profile=HZ) and write a pprof profile of the whole machine — program, runtime, kernel work and idle time — to this `FILE` (go tool pprof -top FILE)")
	profileHz := fs.Int("profile-hz", runner.ProfileHz, "samples per second and core for -profile (at most 10000)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./qemu run [flags] PKG [-- ARGS...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(argv); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return runner.ExitRunnerError
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	timeoutSet := set["timeout"]
	cfg.Timeout = *timeout
	if err := cfg.Machine.Select(*arch, *machine); err != nil {
		fmt.Fprintf(os.Stderr, "gmpos: %v\n", err)
		return runner.ExitRunnerError
	}
	if cfg.Machine.IsRPi() && !set["smp"] {
		cfg.SMP = 4 // the SoC's cores: QEMU's raspi machines have no other count
	}
	if cfg.Machine.IsArm64() && !set["firmware"] {
		cfg.Machine.Firmware = "" // -firmware's default is amd64's; arm64 has none (an explicit one is refused)
	}
	if cfg.Mem == "auto" {
		cfg.Mem = runner.AutoMem(runner.HostAvailableKiB())
	}
	if !timeoutSet && !cfg.GDB {
		cfg.Timeout = 5 * time.Minute
	}
	// -kopt env=K=V is the older spelling of -e K=V: fold it in, in order, so that the one
	// environment is merged (and counted) in one place.
	var vars []string
	for _, o := range kopts {
		if kv, ok := strings.CutPrefix(o, "env="); ok {
			vars = append(vars, kv)
		} else {
			cfg.KOpts = append(cfg.KOpts, o)
		}
	}
	env, err := guestEnv(envFiles, append(vars, envVars...))
	if err != nil {
		fmt.Fprintf(os.Stderr, "gmpos: %v\n", err)
		return runner.ExitRunnerError
	}
	cfg.Env = env
	cfg.Net.Mode = runner.NetMode(*netMode)
	if err := cfg.Net.Validate(); err != nil {
		fmt.Fprintf(os.Stderr, "gmpos: %v\n", err)
		return runner.ExitRunnerError
	}
	if *traceFile != "" {
		cfg.KOpts = append(cfg.KOpts, "trace=1")
	}
	if cfg.Profile != "" {
		if *profileHz <= 0 || *profileHz > 10000 {
			fmt.Fprintln(os.Stderr, "gmpos: -profile-hz must be 1..10000")
			return runner.ExitRunnerError
		}
		cfg.KOpts = append(cfg.KOpts, fmt.Sprintf("profile=%d", *profileHz))
	}
	pkg, args := splitArgs(fs.Args())
	if len(pkg) == 0 {
		fmt.Fprintln(os.Stderr, "gmpos: run: no package given")
		fs.Usage()
		return runner.ExitRunnerError
	}
	cfg.Args = args
	if test {
		cfg.Build.Test = true
		cfg.Args = testArgs(args)
	}

	cfg.Stdin = os.Stdin
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Signals = forwardSignals(cancel, *grace)
	res, err := runner.Run(ctx, pkg, cfg)
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "gmpos: interrupted; QEMU stopped")
		return 130 // the shell's status for SIGINT
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gmpos: %v\n", err)
		return runner.ExitRunnerError
	}
	if res.Why != "" {
		fmt.Fprintf(os.Stderr, "gmpos: %s\n", res.Why)
	}
	if test {
		verdict := "ok  "
		if res.ExitCode != 0 {
			verdict = "FAIL"
		}
		fmt.Printf("%s\t%s\t%.3fs (in the guest)\n", verdict, res.Target.ImportPath, res.End.Sub(res.QEMUStart).Seconds())
	}
	if *traceFile != "" {
		if err := writeTrace(*traceFile, res, strings.Join(pkg, " "), kopts); err != nil {
			fmt.Fprintf(os.Stderr, "gmpos: trace: %v\n", err)
			if res.ExitCode == 0 {
				return runner.ExitRunnerError
			}
		}
	}
	if cfg.Profile != "" {
		if res.ProfileErr != nil {
			fmt.Fprintf(os.Stderr, "gmpos: profile: %v\n", res.ProfileErr)
			if res.ExitCode == 0 {
				return runner.ExitRunnerError
			}
		} else {
			p := res.Profile
			lost := ""
			if p.Lost > 0 {
				lost = fmt.Sprintf(", %d lost (the store was full)", p.Lost)
			}
			fmt.Fprintf(os.Stderr, "gmpos: profile: %d samples at %d Hz (program %d, kernel %d, idle %d)%s → %s (go tool pprof -top %s)\n",
				p.Samples, p.Hz, p.User, p.Kernel, p.Idle, lost, cfg.Profile, cfg.Profile)
		}
	}
	if cfg.Verbose || *stats {
		ms := func(a, b time.Time) string {
			if a.IsZero() || b.IsZero() {
				return "n/a"
			}
			return fmt.Sprintf("%.1f ms", float64(b.Sub(a).Microseconds())/1000)
		}
		fmt.Fprintf(os.Stderr, "gmpos: build %.1fs; QEMU start → kernel entry %s, → first output %s; kernel entry → first output %s; exit status %d\n",
			res.BuildTime.Seconds(), ms(res.QEMUStart, res.Entry), ms(res.QEMUStart, res.FirstOutput), ms(res.Entry, res.FirstOutput), res.ExitCode)
	}
	return res.ExitCode
}

func build(argv []string) int {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	arch := fs.String("arch", "amd64", "guest architecture: amd64 (a Multiboot image) or arm64 (a Linux arm64 Image for virt)")
	out := fs.String("o", "", "output image (default build/NAME.img)")
	verbose := fs.Bool("v", false, "print the build command")
	if err := fs.Parse(argv); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return runner.ExitRunnerError
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./qemu build [-arch amd64|arm64] [-o IMAGE] [-v] PKG")
		return runner.ExitRunnerError
	}
	if *arch != runner.ArchAMD64 && *arch != runner.ArchARM64 {
		fmt.Fprintf(os.Stderr, "gmpos: -arch %q: want amd64 or arm64\n", *arch)
		return runner.ExitRunnerError
	}
	img, err := buildImage(fs.Args(), *arch, *out, *verbose)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gmpos: %v\n", err)
		return runner.ExitRunnerError
	}
	fmt.Println(img)
	return 0
}

func buildImage(pkg []string, arch, out string, verbose bool) (string, error) {
	root, err := runner.FindGmposRoot()
	if err != nil {
		return "", err
	}
	t, err := runner.ResolveFor(pkg, root, arch)
	if err != nil {
		return "", err
	}
	if out == "" {
		out = filepath.Join("build", t.Name+".img")
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp("", "gmpos-build")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	spec := runner.BuildSpec{GmposRoot: root, WorkDir: work, Arch: arch}
	if verbose {
		spec.Verbose = func(s string) { fmt.Fprintln(os.Stderr, "gmpos:", s) }
	}
	// A program that imports net gets the network stack (docs/network.md).
	if spec.Netstack, _, err = runner.ImportsNet(t, spec); err != nil {
		return "", err
	}
	if verbose && spec.Netstack {
		fmt.Fprintln(os.Stderr, "gmpos: the program imports net: linking", runner.NetstackImport)
	}
	return out, runner.Build(t, spec, out, "")
}

// writeTrace converts the guest's scheduler events into a timeline file.
func writeTrace(path string, res *runner.Result, title string, kopts []string) error {
	policy := "gmp"
	for _, o := range kopts {
		if v, ok := strings.CutPrefix(o, "sched="); ok {
			policy = v
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	st, err := runner.WriteTrace(f, res.Records, title, policy)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	lost := ""
	if st.Lost > 0 {
		lost = fmt.Sprintf(" (the oldest %d events were overwritten)", st.Lost)
	}
	net := ""
	if st.PollReady+st.NICReady > 0 {
		net = fmt.Sprintf(", %d threads readied by the network poller and %d by the NIC interrupt", st.PollReady, st.NICReady)
	}
	fmt.Fprintf(os.Stderr, "gmpos: trace: %d events, %d runs on %d cores%s%s → %s (open in ui.perfetto.dev)\n", st.Events, st.Slices, st.Cores, net, lost, path)
	return nil
}

// sdImage is gmpos image: PKG and the kernel for a Raspberry Pi, on an SD card image
// (runner.SDImage).
func sdImage(argv []string) int {
	cfg := runner.DefaultConfig()
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	board := fs.String("board", "", "the Raspberry Pi: rpi3 (3 Model B) or rpi4 (4 Model B)")
	out := fs.String("o", "", "the SD card image to write (for dd or Raspberry Pi Imager)")
	size := fs.Int("size", 0, "the image's size in MiB (default: the smallest that fits, at least 64)")
	fs.BoolVar(&cfg.Verbose, "v", false, "print the build commands")
	var kopts, envVars multiFlag
	fs.Var(&kopts, "kopt", "kernel option KEY=VALUE (repeatable), e.g. sched=gmp, klog=1")
	fs.Var(&envVars, "e", "set the program's environment variable `KEY=VALUE` (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./qemu image -board rpi3|rpi4 -o SD.IMG [flags] PKG [-- ARGS...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(argv); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return runner.ExitRunnerError
	}
	pkg, args := splitArgs(fs.Args())
	if len(pkg) == 0 || *out == "" || *board == "" {
		fs.Usage()
		return runner.ExitRunnerError
	}
	env, err := guestEnv(nil, envVars)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gmpos: %v\n", err)
		return runner.ExitRunnerError
	}
	cfg.Args, cfg.Env, cfg.KOpts, cfg.Log = args, env, kopts, os.Stderr
	if err := runner.SDImage(context.Background(), pkg, cfg, *board, *out, *size); err != nil {
		fmt.Fprintf(os.Stderr, "gmpos: %v\n", err)
		return runner.ExitRunnerError
	}
	fmt.Fprintf(os.Stderr, "gmpos: wrote %s: write it to an SD card (dd if=%s of=/dev/sdX bs=4M conv=fsync, or Raspberry Pi Imager's \"Use custom\"), connect a 3.3 V serial adapter to GPIO 14 (TX, pin 8), GPIO 15 (RX, pin 10) and ground (pin 6) at 115200 8N1, and power the %s on\n", *out, *out, *board)
	return 0
}
