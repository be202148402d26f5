// Run: build, boot, stream, map the exit status.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Config is everything `go run ./qemu run` can set.
type Config struct {
	Machine
	Timeout time.Duration // 0: wait forever
	Verbose bool          // print the build and QEMU commands to Log
	KOpts   []string      // kernel options KEY=VALUE
	Env     []string      // the program's environment, KEY=VALUE (env.go: DefaultEnv; argsmod.go: Linux's limits)
	Args    []string      // argv[1:]
	KeepDir string        // if set, keep the ELF and image here
	// ImageOnly, for the Raspberry Pi machines: write kernel8.img — plain-text console, no
	// semihosting, as a board boots it from an SD card — to this path and boot nothing.
	ImageOnly string
	Net       Network   // -net, -hostfwd, -netinject; the zero value is -net auto
	FS        []FSMount // -fs: host directories copied into the guest's root file system, in order
	Shares    []Share   // -share: host directories the guest reads and writes over virtio-9p (share.go)
	// Profile, if set, is where the whole-machine profile goes (profile.go); the kernel must
	// sample (KOpts profile=HZ).
	Profile string

	Stdin   io.Reader  // the program's stdin (COM1's input; arm64: the UART's channel 1), then end of file; nil: empty
	Signals <-chan int // signals for the program (COM2's input; arm64: channel 2): SIGHUP, SIGINT, SIGQUIT, SIGTERM

	Stdout io.Writer // guest fd 1 (the virtio console's stdout records; COM1 after the start marker; arm64: the UART's channel 1)
	Stderr io.Writer // guest fd 2 (the virtio console's stderr records; COM2; arm64: channel 2)
	Log    io.Writer // runner messages and kernel "log" records

	// UARTConsole leaves the virtio console out: the program's output then takes COM1 and COM2
	// as it did before there was one (300 KB/s, stdout and stderr not kept in order). For
	// comparisons and for testing the kernel's fallback. arm64 virt puts its output on the
	// UART's records instead; so does every machine without virtio PCI devices
	// (NoPCIDevicesWhy: virt with GICv3, the Raspberry Pis).
	UARTConsole bool

	Build BuildSpec // kernel import/entry overrides; GmposRoot (found if empty)
}

// DefaultConfig returns the documented defaults: q35, TCG, 1G, one CPU,
// output to the process's stdout/stderr.
func DefaultConfig() Config {
	return Config{
		Machine: Machine{Machine: "q35", Accel: "tcg", Mem: "1G", SMP: 1},
		Stdout:  os.Stdout, Stderr: os.Stderr, Log: os.Stderr,
	}
}

// Result describes a finished run.
type Result struct {
	ExitCode int      // the runner's exit code (see ExitCode)
	Why      string   // explanation when it is not a plain "exit n"
	Records  []Record // control records in arrival order
	Started  bool     // the start marker arrived on COM1 (arm64: the UART)
	Firmware []byte   // COM1's (arm64: the UART's) bytes before the marker (or all, if none)
	QEMU     []byte   // QEMU's own stdout+stderr
	Fault    string   // for a kernel panic: the faulting instruction, disassembled and symbolized

	Target *Target
	Image  string // kept image path ("" unless KeepDir)
	// Profile: what WriteProfile wrote for Config.Profile, or why it could not.
	Profile    ProfileStats
	ProfileErr error
	Net        NetMode // the network the guest booted with (NetUser or NetNone)

	BuildTime   time.Duration
	QEMUStart   time.Time // process started
	Entry       time.Time // "entry" record (zero if none)
	FirstOutput time.Time // first byte of the program's output (zero if none)
	End         time.Time // QEMU exited
}

// Run builds pkg (see Resolve) with the kernel linked in and boots it.
// An error means the runner itself failed (exit code 125); otherwise the
// Result carries the guest's exit code.
func Run(ctx context.Context, pkg []string, cfg Config) (*Result, error) {
	if err := cfg.Machine.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Net.Validate(); err != nil {
		return nil, err
	}
	arm := cfg.Machine.IsArm64()
	if arm {
		if err := checkArm64Config(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("-timeout %v: must not be negative", cfg.Timeout)
	}
	tsc := startTSC() // measured across the build: hosttsc.go
	logf := func(format string, a ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "gmpos: "+format+"\n", a...)
		}
	}
	var err error
	if cfg.Build.GmposRoot == "" {
		if cfg.Build.GmposRoot, err = FindGmposRoot(); err != nil {
			return nil, err
		}
	}
	var qemu string
	if cfg.ImageOnly == "" {
		if qemu, err = CheckQEMUMachine(cfg.Machine, cfg.Build.GmposRoot, func(s string) { logf("%s", s) }); err != nil {
			return nil, err
		}
	} else if !cfg.Machine.IsRPi() {
		return nil, fmt.Errorf("an image without a boot is made for the Raspberry Pi machines only")
	}
	var t *Target
	if cfg.Build.Test {
		if len(pkg) != 1 {
			return nil, fmt.Errorf("gmpos test: one package at a time")
		}
		t, err = ResolveTestFor(pkg[0], cfg.Build.GmposRoot, cfg.Machine.arch())
	} else {
		t, err = ResolveFor(pkg, cfg.Build.GmposRoot, cfg.Machine.arch())
	}
	if err != nil {
		return nil, err
	}
	// argv and envp go in the argument module; the command line keeps the kernel's options.
	argv0 := t.Name
	var kopts []string
	for _, o := range cfg.KOpts {
		if v, ok := strings.CutPrefix(o, "argv0="); ok {
			argv0 = v
		} else if kv, ok := strings.CutPrefix(o, "env="); ok {
			cfg.Env = append(cfg.Env, kv)
		} else {
			kopts = append(kopts, o)
		}
	}
	argsMod, err := ArgsModule(append([]string{argv0}, cfg.Args...), cfg.Env)
	if err != nil {
		return nil, err
	}
	root, err := cfg.rootFSFor(t)
	if err != nil {
		return nil, err
	}
	if err := CheckShares(cfg.Shares); err != nil {
		return nil, err
	}
	kopts = append(kopts, ShareKopts(cfg.Shares)...)
	if wd, err := os.Getwd(); err == nil && t.Kind != KindTest && !hasOption(kopts, "cwd") {
		if g, ok := shareCwd(wd, cfg.Shares); ok {
			kopts = append(kopts, "cwd="+g) // a share's mount point: not in the archive
		}
	}
	if !hasOption(kopts, "cwd") {
		if err := checkCwd(root.Cwd); err != nil {
			return nil, err
		}
		kopts = append(kopts, "cwd="+root.Cwd)
	} else {
		root.Cwd = "" // the user's: not checked against the archive
	}
	if _, err := Cmdline(argv0, kopts, nil); err != nil {
		return nil, err // checked before the build; made with the TSC rate before QEMU starts
	}

	// QEMU prepends the image path to the Multiboot command line, and the
	// kernel skips that first space-separated token: the path must not
	// contain spaces, so the work directory gets a plain name. Nor commas,
	// which separate -initrd's modules (initrdArg doubles them all the same).
	base := os.TempDir()
	if len(base) > 60 || Escape(base) != base || strings.Contains(base, ",") {
		base = "/tmp"
	}
	work, err := os.MkdirTemp(base, "gmpos-run")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	img := filepath.Join(work, Escape(t.Name)+".img")
	modPath := filepath.Join(work, "args")
	if err := os.WriteFile(modPath, argsMod, 0o644); err != nil {
		return nil, err
	}

	spec := cfg.Build
	spec.WorkDir = work
	spec.Arch = cfg.Machine.arch()
	spec.Board = cfg.Machine.Board()
	if cfg.Verbose {
		spec.Verbose = func(s string) { logf("%s", s) }
	}
	spec.Warn = func(s string) { logf("%s", s) }
	res := &Result{Target: t}
	t0 := time.Now()
	importsNet, chain, err := ImportsNet(t, spec)
	if err != nil {
		return nil, err
	}
	spec.Netstack = importsNet // also with -net none: loopback works without a NIC
	var why string
	res.Net, why = cfg.Net.Decide(importsNet, chain)
	if res.Net == NetUser && NoPCIDevicesWhy(cfg.Machine) != "" { // -net auto: checkArm64Config refused the rest
		logf("no NIC on %s (%s): the program imports net, but the guest gets none (loopback works)", cfg.Machine.Machine, NoPCIDevicesWhy(cfg.Machine))
		res.Net, why = NetNone, "no NIC on "+cfg.Machine.Machine
	}
	if cfg.Verbose {
		stack := "; the network stack is not linked"
		if importsNet {
			stack = "; linking " + NetstackImport
		}
		logf("network %s: %s%s", res.Net, why, stack)
	}
	exe := filepath.Join(work, t.Name+".exe")
	if err := Build(t, spec, img, exe); err != nil {
		return nil, err
	}
	res.BuildTime = time.Since(t0)
	rootPath := filepath.Join(work, "initramfs")
	root.Name, root.Image, root.Warn = t.Name, exe, spec.Warn
	t1 := time.Now()
	entries, size, err := root.write(rootPath)
	if err != nil {
		return nil, fmt.Errorf("the guest's root file system: %v", err)
	}
	if cfg.Verbose {
		logf("root file system: %d entries, %s, written in %v", entries, mib(size), time.Since(t1).Round(time.Millisecond/10))
	}
	var initrd string
	switch {
	case cfg.Machine.IsRPi():
		// No -initrd or -append on the Pi: the container, the command line its third module,
		// travels inside kernel8.img (boot.Arm64Image.AppendModules).
		if err := appendRPiModules(img, work, argv0, kopts, modPath, rootPath, cfg.ImageOnly == ""); err != nil {
			return nil, err
		}
		if cfg.ImageOnly != "" {
			return res, copyFile(img, cfg.ImageOnly)
		}
	case arm:
		// -initrd is one file on arm64: the modules container (modules.go).
		initrd = filepath.Join(work, "modules")
		if err := WriteModules(initrd, modPath, rootPath); err != nil {
			return nil, fmt.Errorf("the modules container: %v", err)
		}
	default:
		if initrd, err = initrdArg(modPath, rootPath); err != nil {
			return nil, err
		}
	}
	if cfg.KeepDir != "" {
		if res.Image, err = keep(cfg.KeepDir, img, filepath.Join(work, t.Name+".elf")); err != nil {
			return nil, err
		}
		logf("image kept at %s", res.Image)
	}

	nports, port := 3, "COM1"
	if arm {
		nports, port = 1, "the UART"
	}
	sockDir, socks, ls, err := serialListeners(nports)
	if err != nil {
		return nil, fmt.Errorf("creating serial sockets: %v", err)
	}
	defer os.RemoveAll(sockDir)
	defer func() {
		for _, l := range ls[:nports] {
			l.Close()
		}
	}()
	vcon := !cfg.UARTConsole && NoPCIDevicesWhy(cfg.Machine) == ""
	if arm && cfg.Verbose && !vcon {
		logf("%s: stdout, stderr and the control channel share the one UART (no virtio console)", cfg.Machine.Machine)
	}
	var conSock string
	var conL net.Listener
	if vcon {
		if conSock, conL, err = consoleListener(sockDir); err != nil {
			return nil, fmt.Errorf("creating the console socket: %v", err)
		}
		defer conL.Close()
	}

	var sink netip.AddrPort
	if res.Net == NetUser && cfg.Net.Inject != "" {
		c, err := injectSink(cfg.Net.Inject)
		if err != nil {
			return nil, err
		}
		defer c.Close() // ends the drain
		sink = c.LocalAddr().(*net.UDPAddr).AddrPort()
	}
	for _, f := range cfg.Net.HostFwd {
		logf("forwarding 127.0.0.1:%d (tcp) to the guest's port %d", f.Host, f.Guest)
	}
	// The host's TSC rate is an x86 guest's cycle counter's; an arm64 guest's counter
	// (CNTVCT_EL0) runs at the rate the device tree states.
	if hz := tsc.hostTSCHz(); hz != 0 && !arm && cfg.Machine.Accel == "tcg" && !hasOption(kopts, "tsc_hz") {
		kopts = append(kopts, "tsc_hz="+strconv.FormatUint(hz, 10))
	}
	cmdline, err := Cmdline(argv0, kopts, nil)
	if err != nil {
		return nil, err
	}
	args := append(QEMUArgs(cfg.Machine, img, cmdline, socks), NetArgs(cfg.Net, res.Net, sink)...)
	if conL != nil {
		args = append(args, ConsoleArgs(conSock)...)
	}
	args = append(args, ShareArgs(cfg.Shares)...)
	if !cfg.Machine.IsRPi() {
		args = append(args, "-initrd", initrd) // the modules (arm64: their container): argv and envp, then the root file system
	}
	cmd := exec.Command(qemu, args...)
	// If the runner dies (killed by a test timeout, say), QEMU must not
	// outlive it: the kernel delivers SIGKILL to QEMU when its parent
	// thread exits (prctl PR_SET_PDEATHSIG, Linux only, as is this tool).
	// QEMU gets a process group of its own, so that a terminal's Ctrl-C reaches the runner
	// only, which forwards it to the program (Signals) instead of QEMU quitting at once.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	var qout lockedBuffer
	cmd.Stdout, cmd.Stderr = &qout, &qout
	if cfg.Verbose {
		logf("qemu: %s %s", qemu, shellJoin(args))
	}
	if cfg.GDB {
		elfPath := filepath.Join(work, t.Name+".elf") // deleted at exit: use -keep to debug with symbols
		if cfg.KeepDir != "" {
			elfPath = filepath.Join(cfg.KeepDir, t.Name+".elf")
		}
		gdb := "gdb"
		if arm {
			gdb = "gdb-multiarch" // Debian's gdb debugs the host's architecture only
		}
		logf("QEMU is waiting for gdb: %s %s -ex 'target remote :1234'", gdb, elfPath)
	}

	// Stream the three ports and the virtio console. Input waits for the kernel's "input"
	// record (input.go).
	inputReady, inputOnce := make(chan struct{}), sync.Once{}
	defer inputOnce.Do(func() { close(inputReady) }) // the feeders then find the socket closed
	var mu sync.Mutex                                // guards res.Records, res.Entry, res.FirstOutput
	firstOutput := func() {
		mu.Lock()
		if res.FirstOutput.IsZero() {
			res.FirstOutput = time.Now()
		}
		mu.Unlock()
	}
	var outMu sync.Mutex // the program's output writers are shared by the readers (syncWriter)
	stdout := syncWriter{&outMu, orDiscard(cfg.Stdout)}
	stderr := syncWriter{&outMu, orDiscard(cfg.Stderr)}
	com1 := &MarkerWriter{W: stdout, OnOutput: firstOutput}
	var uart *UARTDemux
	if arm {
		// One UART: after the marker, records for stdout, stderr and the control channel.
		uart = &UARTDemux{Stdout: stdout, Stderr: stderr, OnOutput: firstOutput}
		com1 = &MarkerWriter{W: uart}
	}
	sinks := [3]func(io.Reader){
		func(c io.Reader) { io.Copy(com1, c) },
		func(c io.Reader) { io.Copy(stderr, c) },
		func(c io.Reader) {
			br := bufio.NewReader(c)
			for {
				line, err := br.ReadString('\n')
				if line = strings.TrimRight(line, "\r\n"); line != "" {
					r, perr := ParseRecord(line)
					r.At = time.Now()
					switch {
					case perr != nil:
						logf("bad control record: %v", perr)
					case r.Kind == "log":
						logf("kernel: %s", r.Text)
					}
					mu.Lock()
					if r.Kind == "entry" && res.Entry.IsZero() {
						res.Entry = r.At
					}
					if r.Kind == "input" {
						inputOnce.Do(func() { close(inputReady) })
					}
					if perr == nil {
						res.Records = append(res.Records, r)
					}
					mu.Unlock()
				}
				if err != nil {
					return
				}
			}
		},
	}
	var wg sync.WaitGroup
	var conns [4]net.Conn // COM1..COM3, the virtio console
	var connMu sync.Mutex
	if conL != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := conL.Accept()
			if err != nil {
				return // QEMU never connected (it failed); listener closed
			}
			connMu.Lock()
			conns[3] = c
			connMu.Unlock()
			if err := Demux(c, stdout, stderr, firstOutput); err != nil {
				logf("%v", err)
			}
		}()
	}
	for i := range nports {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := ls[i].Accept()
			if err != nil {
				return // QEMU never connected (it failed); listener closed
			}
			connMu.Lock()
			conns[i] = c
			connMu.Unlock()
			switch {
			case arm:
				// Input goes back on the same socket as records; the control channel's bytes
				// reach the COM3 reader through a pipe.
				var inMu sync.Mutex
				go feedStdin(recordSender{&inMu, c, ConsoleStdout}, cfg.Stdin, inputReady)
				go feedSignals(recordSender{&inMu, c, ConsoleStderr}, cfg.Signals, inputReady)
				pr, pw := io.Pipe()
				uart.Control = pw
				control := make(chan struct{})
				go func() {
					sinks[2](pr)
					pr.Close() // a write after a reader's failure fails rather than blocks
					close(control)
				}()
				sinks[0](c)
				if err := uart.Close(); err != nil {
					logf("%v", err)
				}
				pw.Close()
				<-control
				return
			case i == 0:
				go feedStdin(c, cfg.Stdin, inputReady)
			case i == 1:
				go feedSignals(c, cfg.Signals, inputReady)
			}
			sinks[i](c)
		}(i)
	}

	res.QEMUStart = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting QEMU: %v", err)
	}
	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	var timeout <-chan time.Time
	if cfg.Timeout > 0 {
		tm := time.NewTimer(cfg.Timeout)
		defer tm.Stop()
		timeout = tm.C
	}
	var out Outcome
	select {
	case err = <-waitErr:
	case <-timeout:
		out.TimedOut = true
		cmd.Process.Kill()
		err = <-waitErr
	case <-ctx.Done():
		cmd.Process.Kill()
		<-waitErr
		return nil, ctx.Err()
	}
	res.End = time.Now()
	out.Status = cmd.ProcessState.ExitCode()
	if err != nil && out.Status < 0 && !out.TimedOut {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, fmt.Errorf("waiting for QEMU: %v", err)
		}
	}

	// QEMU closed its ends when it exited; drain what is buffered. A
	// connection QEMU never made is unblocked by closing the listener.
	for _, l := range ls[:nports] {
		l.Close()
	}
	if conL != nil {
		conL.Close()
	}
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(5 * time.Second):
		connMu.Lock()
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
		connMu.Unlock()
		<-drained
	}

	mu.Lock()
	out.Records = res.Records
	if arm && !res.Entry.IsZero() && res.FirstOutput.Before(res.Entry) {
		// One UART carries both: the demux stamps the program's first byte as it passes, the
		// control reader stamps "entry" once its goroutine has parsed the line, which can be a
		// few microseconds later although the record came first (CI saw 11 µs). The stream's
		// order is the truth.
		res.FirstOutput = res.Entry
	}
	mu.Unlock()
	out.Semihosting = arm
	res.Started = com1.Started()
	res.Firmware = com1.Firmware()
	res.QEMU = qout.Bytes()
	res.ExitCode, res.Why = ExitCode(out)
	if cfg.Profile != "" {
		res.Profile, res.ProfileErr = WriteProfile(cfg.Profile, out.Records, filepath.Join(work, t.Name+".elf"), exe)
	}
	for _, r := range out.Records {
		if r.Kind == "panic" {
			elfData, _ := os.ReadFile(filepath.Join(work, t.Name+".elf"))
			if res.Fault = DescribeFault(r.Text, elfData); res.Fault != "" {
				res.Why += "\n" + res.Fault
			}
			break
		}
	}
	if out.TimedOut {
		res.Why = fmt.Sprintf("timeout: guest still running after %v; QEMU killed", cfg.Timeout)
	}
	if res.ExitCode == ExitRunnerError && len(res.QEMU) > 0 {
		res.Why += "\nQEMU said: " + strings.TrimSpace(string(res.QEMU))
	}
	if res.ExitCode == ExitRunnerError && !res.Started {
		res.Why += "\nthe kernel never printed its start marker on " + port
		if len(res.Firmware) > 0 {
			res.Why += fmt.Sprintf("; %s had %q", port, tail(res.Firmware, 200))
		}
	}
	return res, nil
}

// injectSink opens the UDP socket that receives what QEMU's inject netdev sends (every frame on
// the hub, see NetArgs) and discards it until closed.
func injectSink(inject string) (*net.UDPConn, error) {
	inj, err := ParseInject(inject)
	if err != nil {
		return nil, err
	}
	c, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(InjectSinkAddr(inj), 0)))
	if err != nil {
		return nil, fmt.Errorf("-netinject: opening the sink for the hub's frames: %v", err)
	}
	go func() {
		buf := make([]byte, 64<<10)
		for {
			if _, _, err := c.ReadFrom(buf); err != nil {
				return
			}
		}
	}()
	return c, nil
}

// FindGmposRoot locates the gmpos module: $GMPOS_ROOT, else the source
// tree this runner was compiled from, else the current directory or an
// ancestor.
func FindGmposRoot() (string, error) {
	try := func(d string) (string, bool) {
		root, mod, err := FindModule(d)
		return root, err == nil && mod == GmposModule
	}
	if d := os.Getenv("GMPOS_ROOT"); d != "" {
		if r, ok := try(d); ok {
			return r, nil
		}
		return "", fmt.Errorf("GMPOS_ROOT=%s is not inside the gmpos module", d)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		if r, ok := try(filepath.Dir(file)); ok {
			return r, nil
		}
	}
	if wd, err := os.Getwd(); err == nil {
		if r, ok := try(wd); ok {
			return r, nil
		}
	}
	return "", fmt.Errorf("cannot find the gmpos module: run from its directory or set GMPOS_ROOT")
}

func keep(dir, img, elf string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, filepath.Base(img))
	for _, p := range [][2]string{{img, dst}, {elf, filepath.Join(dir, filepath.Base(elf))}} {
		data, err := os.ReadFile(p[0])
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(p[1], data, 0o755); err != nil {
			return "", err
		}
	}
	return dst, nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

type lockedBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	return len(p), nil
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]byte(nil), l.b...)
}
