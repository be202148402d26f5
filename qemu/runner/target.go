// Resolving PKG: a package of gmpos, a plain directory or files, or another module.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bufio"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// Kind says how a target is built.
type Kind int

const (
	// KindGmpos: a package inside the gmpos module; built in that module.
	KindGmpos Kind = iota
	// KindPlain: .go files (or a directory of them) outside any module,
	// e.g. $(go env GOROOT)/test/chan/sieve1.go; built as
	// command-line-arguments from the gmpos module, which provides
	// gmpos/kernel.
	KindPlain
	// KindModule: a package of another module; its go.mod is honoured and
	// gmpos joins the build through a temporary go.work.
	KindModule
	// KindTest: the tests of a standard-library package or of a package of the gmpos module,
	// built with go test -c from the gmpos module (ResolveTest).
	KindTest
)

func (k Kind) String() string {
	return [...]string{"gmpos package", "plain files", "other module", "package tests"}[k]
}

// Target is a resolved PKG argument.
type Target struct {
	Kind    Kind
	Dir     string   // absolute package directory
	Files   []string // KindPlain: absolute .go files to build
	ModRoot string   // KindGmpos/KindModule: root of the enclosing module
	ModPath string   // its module path
	Name    string   // program name: argv[0] and image name

	ImportPath string // KindTest: the package's import path
	PkgName    string // KindTest: its package name (the overlay joins package PkgName_test)
}

// GmposModule is the module path of this repository.
const GmposModule = "gmpos"

// Resolve interprets pkg: a directory, one or more .go files (all in one
// directory), or an import path "gmpos/..." resolved under gmposRoot. A plain directory's files
// are those that build for linux/amd64 (ResolveFor: another GOARCH).
func Resolve(pkg []string, gmposRoot string) (*Target, error) {
	return ResolveFor(pkg, gmposRoot, ArchAMD64)
}

// ResolveFor is Resolve for a guest of architecture goarch.
func ResolveFor(pkg []string, gmposRoot, goarch string) (*Target, error) {
	if len(pkg) == 0 {
		return nil, fmt.Errorf("no package given")
	}
	if len(pkg) == 1 && !strings.HasSuffix(pkg[0], ".go") {
		p := pkg[0]
		if _, err := os.Stat(p); err != nil && (p == GmposModule || strings.HasPrefix(p, GmposModule+"/")) {
			p = filepath.Join(gmposRoot, strings.TrimPrefix(strings.TrimPrefix(p, GmposModule), "/"))
		}
		dir, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("package %s: %v", pkg[0], err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("package %s: not a directory or .go file", pkg[0])
		}
		return resolveDir(dir, nil, goarch)
	}
	var files []string
	dir := ""
	for _, f := range pkg {
		if !strings.HasSuffix(f, ".go") {
			return nil, fmt.Errorf("%s: when files are given, all must be .go files", f)
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(abs); err != nil {
			return nil, err
		}
		if dir != "" && filepath.Dir(abs) != dir {
			return nil, fmt.Errorf("named files must all be in one directory; have %s and %s", dir, filepath.Dir(abs))
		}
		dir = filepath.Dir(abs)
		files = append(files, abs)
	}
	return resolveDir(dir, files, goarch)
}

func resolveDir(dir string, files []string, goarch string) (*Target, error) {
	t := &Target{Dir: dir, Files: files}
	root, mod, err := FindModule(dir)
	if err != nil {
		return nil, err
	}
	switch {
	case root == "":
		t.Kind = KindPlain
	case mod == GmposModule:
		t.Kind, t.ModRoot, t.ModPath = KindGmpos, root, mod
	default:
		t.Kind, t.ModRoot, t.ModPath = KindModule, root, mod
	}
	if t.Kind == KindPlain && files == nil {
		// go build cannot build a directory outside every module, so name
		// its files, filtered by build constraints as go build would.
		if t.Files, err = mainFiles(dir, goarch); err != nil {
			return nil, err
		}
	}
	if len(files) > 0 {
		t.Name = strings.TrimSuffix(filepath.Base(files[0]), ".go")
	} else {
		t.Name = filepath.Base(dir)
	}
	if err := checkMain(t, goarch); err != nil {
		return nil, err
	}
	return t, nil
}

// checkMain makes sure the target is a main package, so that the error
// names the problem instead of coming from the generated file.
func checkMain(t *Target, goarch string) error {
	files := t.Files
	if files == nil {
		var err error
		if files, err = mainFiles(t.Dir, goarch); err != nil {
			return err
		}
	}
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		if name := af.Name.Name; name != "main" {
			return fmt.Errorf("%s is package %s, not package main: only programs can be booted", f, name)
		}
	}
	return nil
}

// FindModule returns the root and module path of the module containing
// dir, or "" if there is none (a go.mod in dir or an ancestor).
func FindModule(dir string) (root, modPath string, err error) {
	for d := dir; ; {
		gomod := filepath.Join(d, "go.mod")
		if data, err := os.ReadFile(gomod); err == nil {
			mp := ModulePath(data)
			if mp == "" {
				return "", "", fmt.Errorf("%s: no module line", gomod)
			}
			return d, mp, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", nil
		}
		d = parent
	}
}

// ModulePath returns the module path declared by a go.mod file's
// contents ("" if none). It understands `module x`, `module "x"` and
// comments, which is all the go.mod grammar allows on that line.
func ModulePath(gomod []byte) string {
	sc := bufio.NewScanner(strings.NewReader(string(gomod)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		return strings.Trim(strings.TrimSpace(rest), `"`)
	}
	return ""
}

// mainFiles lists dir's non-test .go files that build for linux/goarch.
func mainFiles(dir, goarch string) ([]string, error) {
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "linux", goarch, false
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || n == OverlayFile {
			continue
		}
		ok, err := ctx.MatchFile(dir, n)
		if err != nil {
			return nil, err
		}
		if ok {
			files = append(files, filepath.Join(dir, n))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no Go files for linux/%s", dir, goarch)
	}
	return files, nil
}

// ResolveTest interprets the package argument of `gmpos test`: an import path of the standard
// library or of the gmpos module, or a directory of the gmpos module. Packages of other modules
// are refused (not yet supported: their go.mod would have to join a workspace with gmpos).
func ResolveTest(pkg string, gmposRoot string) (*Target, error) {
	return ResolveTestFor(pkg, gmposRoot, ArchAMD64)
}

// ResolveTestFor is ResolveTest for a guest of architecture goarch.
func ResolveTestFor(pkg string, gmposRoot, goarch string) (*Target, error) {
	arg := pkg
	if st, err := os.Stat(pkg); err == nil && st.IsDir() {
		abs, _ := filepath.Abs(pkg)
		rel, err := filepath.Rel(gmposRoot, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("gmpos test: %s is outside the gmpos module: only the standard library's and gmpos's packages can be tested in the guest yet", pkg)
		}
		arg = "./" + filepath.ToSlash(rel)
	}
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}\t{{.Name}}\t{{.Dir}}\t{{.Standard}}\t{{with .Module}}{{.Path}}{{end}}\t{{with .Error}}{{.Err}}{{end}}", arg)
	cmd.Dir = gmposRoot
	cmd.Env = append(BuildEnviron(), "GOOS=linux", "GOARCH="+goarch, "CGO_ENABLED=0", "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("gmpos test: go list %s: %v", pkg, err)
	}
	f := strings.Split(strings.TrimRight(string(out), "\n"), "\t")
	if len(f) != 6 {
		return nil, fmt.Errorf("gmpos test: go list %s: %q", pkg, out)
	}
	if f[5] != "" {
		return nil, fmt.Errorf("gmpos test: %s: %s", pkg, f[5])
	}
	if f[3] != "true" && f[4] != GmposModule {
		return nil, fmt.Errorf("gmpos test: %s is in module %s: only the standard library's and gmpos's packages can be tested in the guest yet", pkg, f[4])
	}
	if f[1] == "main" {
		return nil, fmt.Errorf("gmpos test: %s is a command (package main): run it with gmpos run", pkg)
	}
	return &Target{Kind: KindTest, Dir: f[2], ModRoot: gmposRoot, ImportPath: f[0], PkgName: f[1],
		Name: path.Base(f[0]) + ".test"}, nil
}
