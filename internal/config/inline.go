package config

import (
	"slices"
	"strings"
)

// This file holds the stricter check for servers an AI adds: no
// shell or interpreter given inline code. It looks through common launchers
// (env, npx, uvx, uv run, timeout, ...) to the program they start. When it
// cannot tell whether an argument belongs to the interpreter or to the
// script, it keeps looking, so doubt ends in a refusal rather than a pass.

// maxWrapperDepth bounds how many launchers are looked through.
const maxWrapperDepth = 8

// inlineCode returns a short description such as "bash -c" when target with
// args would run code given inline, or "" when it would not.
func inlineCode(target string, args []string) string {
	for depth := 0; ; depth++ {
		if depth > maxWrapperDepth {
			return "a chain of more than 8 launchers"
		}
		name := programName(target)
		what, next, rest := inspect(name, args)
		if what != "" {
			return name + " " + what
		}
		if next == "" {
			return ""
		}
		target, args = next, rest
	}
}

// programName is the lower-case base name of a command without a Windows
// extension or a trailing version number (python3.12 → python).
func programName(target string) string {
	b := target
	if i := strings.LastIndexAny(b, `/\`); i >= 0 {
		b = b[i+1:]
	}
	b = strings.ToLower(b)
	for _, ext := range []string{".exe", ".cmd", ".bat", ".com"} {
		b = strings.TrimSuffix(b, ext)
	}
	if t := strings.TrimRight(b, "0123456789."); t != "" {
		b = t
	}
	return b
}

// inspect examines one program. It returns what inline-code option it found,
// or the program it launches (next, with its args rest), or neither.
func inspect(name string, args []string) (what, next string, rest []string) {
	if name == "node" || name == "nodejs" || name == "deno" || name == "bun" {
		for _, a := range args {
			if strings.Contains(strings.ToLower(a), "data:") {
				return a + " (a data: URL is inline code)", "", nil
			}
		}
	}
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "csh", "tcsh", "fish", "rbash":
		return scan(args, shellRule(name == "fish")), "", nil
	case "python", "py", "pypy":
		return scan(args, pythonRule), "", nil
	case "node", "nodejs":
		return scan(args, flagRule(nodeValues, "-e", "--eval", "-p", "--print")), "", nil
	case "perl":
		return scan(args, clusterRule("eE", "acnpsStTuUvwWXhl")), "", nil
	case "ruby":
		return scan(args, clusterRule("e", "acdlnpsSvwyhU", "-r", "-I", "-C", "-E")), "", nil
	case "php":
		return scan(args, flagRule(phpValues, "-r", "-B", "-R", "-E")), "", nil
	case "lua", "luajit", "rscript", "osascript":
		return scan(args, flagRule([]string{"-l"}, "-e")), "", nil
	case "awk", "gawk", "mawk", "nawk":
		return "(awk programs are inline code)", "", nil
	case "pwsh", "powershell", "pwsh-preview":
		return powershell(args, name == "powershell"), "", nil
	case "cmd":
		for _, a := range args {
			if l := strings.ToLower(a); strings.HasPrefix(l, "/c") || strings.HasPrefix(l, "/k") || strings.HasPrefix(l, "/r") {
				return a, "", nil
			}
		}
		return "", "", nil
	case "deno":
		return deno(args), "", nil
	case "bun":
		return bun(args)
	case "npx", "bunx":
		return launcher(args, npxValues, "-c", "--call")
	case "uvx", "pipx":
		return launcher(args, npxValues)
	case "npm", "pnpm", "yarn", "uv":
		sub, i := firstPositional(args, npxValues)
		if i < 0 {
			return "", "", nil
		}
		switch sub {
		case "exec", "x", "dlx", "run":
			if name == "npm" && sub == "run" {
				return "", "", nil
			}
			if name == "uv" && sub == "run" {
				return launcher(args[i+1:], npxValues)
			}
			return launcher(args[i+1:], npxValues, "-c", "--call", "--shell-mode")
		case "tool":
			if name == "uv" && i+1 < len(args) && args[i+1] == "run" {
				return launcher(args[i+2:], npxValues)
			}
		}
		return "", "", nil
	case "env":
		for i, a := range args {
			switch {
			case a == "-S" || strings.HasPrefix(a, "--split-string") || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "S")):
				return a, "", nil
			case a == "--":
				if i+1 < len(args) {
					return "", args[i+1], args[i+2:]
				}
				return "", "", nil
			case strings.HasPrefix(a, "-"), strings.Contains(a, "="):
				continue
			}
			if i > 0 && (args[i-1] == "-u" || args[i-1] == "-C" || args[i-1] == "--unset" || args[i-1] == "--chdir") {
				continue
			}
			return "", a, args[i+1:]
		}
		return "", "", nil
	case "sudo", "doas":
		for _, a := range args {
			if a == "--shell" || a == "--login" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "si")) {
				return a + " (runs a shell)", "", nil
			}
		}
		return launcher(args, []string{"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group", "--chdir", "--prompt"})
	case "busybox", "nohup", "setsid", "time", "exec", "command", "stdbuf", "nice":
		return launcher(args, []string{"-n", "-i", "-o", "-e"})
	case "timeout":
		_, i := firstPositional(args, []string{"-s", "-k", "--signal", "--kill-after"})
		if i < 0 || i+1 >= len(args) {
			return "", "", nil
		}
		return "", args[i+1], args[i+2:]
	}
	return "", "", nil
}

// rule classifies one argument of an interpreter: inline code (found),
// an option taking the next argument as its value (skip), the end of the
// interpreter's own options (stop), or an ordinary option.
type rule func(arg string) (found, skip, stop bool)

// scan applies r to args until an inline-code option or the end of options.
func scan(args []string, r rule) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" {
			return ""
		}
		found, skip, stop := r(a)
		switch {
		case found:
			return a
		case stop:
			return ""
		case skip && takesValue(args, i):
			i++
		}
	}
	return ""
}

func shellRule(fish bool) rule {
	return func(a string) (bool, bool, bool) {
		switch {
		case fish && (a == "-C" || a == "--command" || strings.HasPrefix(a, "--command=") || strings.HasPrefix(a, "--init-command")):
			return true, false, false
		case a == "--rcfile" || a == "--init-file":
			return false, true, false
		case strings.HasPrefix(a, "--"):
			return false, false, false
		case strings.HasPrefix(a, "-"):
			return strings.Contains(a[1:], "c"), strings.HasSuffix(a, "o") || strings.HasSuffix(a, "O"), false
		case strings.HasPrefix(a, "+"):
			return false, strings.HasSuffix(a, "o") || strings.HasSuffix(a, "O"), false
		}
		return false, false, true
	}
}

// pythonRule: -c (also in a cluster such as -Sc) is inline code, -m ends the
// interpreter's options, -W and -X take a value.
func pythonRule(a string) (bool, bool, bool) {
	if a == "--check-hash-based-pycs" {
		return false, true, false
	}
	if strings.HasPrefix(a, "--") {
		return false, false, false
	}
	if !strings.HasPrefix(a, "-") {
		return false, false, true
	}
	for i := 1; i < len(a); i++ {
		switch a[i] {
		case 'c':
			return true, false, false
		case 'm':
			return false, false, true
		case 'W', 'X':
			return false, i == len(a)-1, false
		}
	}
	return false, false, false
}

// flagRule matches exact inline flags (and their --flag=value form) and short
// clusters holding one of the single-letter inline flags.
func flagRule(values []string, inline ...string) rule {
	letters := ""
	for _, f := range inline {
		if len(f) == 2 {
			letters += f[1:]
		}
	}
	return func(a string) (bool, bool, bool) {
		for _, f := range inline {
			if a == f || (strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"=")) {
				return true, false, false
			}
		}
		for _, v := range values {
			if a == v {
				return false, true, false
			}
		}
		switch {
		case strings.HasPrefix(a, "--"):
			return false, false, false
		case strings.HasPrefix(a, "-"):
			return len(a) > 2 && strings.ContainsAny(a[1:], letters) && isLetters(a[1:]), false, false
		}
		return false, false, true
	}
}

// clusterRule is for perl and ruby style clusters (-lne): letters in noArg
// continue the cluster, a letter in inline is inline code, any other letter
// takes the rest of the argument as its value.
func clusterRule(inline, noArg string, values ...string) rule {
	return func(a string) (bool, bool, bool) {
		for _, v := range values {
			if a == v {
				return false, true, false
			}
		}
		if strings.HasPrefix(a, "--") {
			return false, false, false
		}
		if !strings.HasPrefix(a, "-") {
			return false, false, true
		}
		for i := 1; i < len(a); i++ {
			switch {
			case strings.IndexByte(inline, a[i]) >= 0:
				return true, false, false
			case strings.IndexByte(noArg, a[i]) < 0:
				return false, false, false
			}
		}
		return false, false, false
	}
}

func isLetters(s string) bool {
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}

var (
	nodeValues = []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions",
		"--title", "--env-file", "--env-file-if-exists", "--input-type", "--inspect-port", "--debug-port",
		"--redirect-warnings", "--report-dir", "--report-directory", "--report-filename", "--watch-path",
		"--icu-data-dir", "--openssl-config", "--tls-cipher-list", "--disable-warning", "--secure-heap",
		"--secure-heap-min", "--dns-result-order", "--unhandled-rejections", "--heapsnapshot-signal",
		"--diagnostic-dir", "--localstorage-file", "--experimental-config-file", "--max-http-header-size"}
	phpValues = []string{"-c", "-d", "-z", "-t", "-S"}
	npxValues = []string{"-p", "--package", "-w", "--workspace", "--registry", "--cache", "--userconfig",
		"--prefix", "--node-options", "--shell", "--script-shell", "--from", "--with", "--python",
		"--index", "--default-index", "--directory", "--project", "--env-file", "--with-requirements",
		"--with-editable", "--spec", "--pip-args", "--extra", "--group", "--filter", "-F", "-C", "--dir"}
)

// firstPositional returns the first argument that is neither an option nor
// the value of one of values, and its index (-1 if none).
func firstPositional(args, values []string) (string, int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				return args[i+1], i + 1
			}
			return "", -1
		}
		if !strings.HasPrefix(a, "-") {
			return a, i
		}
		if slices.Contains(values, a) && takesValue(args, i) {
			i++
		}
	}
	return "", -1
}

// launcher handles programs that start another one (npx PKG ARGS...): it
// checks their own inline flags, then hands over to the launched program.
func launcher(args, values []string, inline ...string) (string, string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				return "", args[i+1], args[i+2:]
			}
			return "", "", nil
		}
		if !strings.HasPrefix(a, "-") {
			return "", a, args[i+1:]
		}
		for _, f := range inline {
			if a == f || strings.HasPrefix(a, f+"=") || (len(f) == 2 && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], f[1:])) {
				return a, "", nil
			}
		}
		if slices.Contains(values, a) && takesValue(args, i) {
			i++
		}
	}
	return "", "", nil
}

// takesValue reports whether args[i+1] can be the value of option args[i]:
// it exists and does not look like an option itself. Refusing to swallow an
// option keeps a mistaken value-taking guess from hiding an inline flag.
func takesValue(args []string, i int) bool {
	return i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !strings.HasPrefix(args[i+1], "/")
}

func deno(args []string) string {
	sub, i := firstPositional(args, nil)
	switch sub {
	case "eval":
		return "eval"
	case "repl":
		for _, a := range args[i+1:] {
			if strings.HasPrefix(a, "--eval") {
				return "repl " + a
			}
		}
	}
	return ""
}

func bun(args []string) (string, string, []string) {
	values := []string{"-r", "--preload", "--cwd", "-c", "--config", "--env-file", "--tsconfig-override", "-d", "--define", "-l", "--loader"}
	r := flagRule(values, "-e", "--eval", "-p", "--print")
	for i := 0; i < len(args); i++ {
		a := args[i]
		found, skip, stop := r(a)
		switch {
		case found:
			return a, "", nil
		case skip && takesValue(args, i):
			i++
		case stop:
			switch a {
			case "run":
				continue
			case "exec":
				return "exec", "", nil
			case "x":
				return launcher(args[i+1:], npxValues)
			}
			return "", "", nil
		}
	}
	return "", "", nil
}

// powershell finds -Command, -EncodedCommand, -CommandWithArgs and their
// abbreviations. Windows PowerShell also reads a bare argument as a command.
func powershell(args []string, windows bool) string {
	isPrefix := func(opt, full string) bool { return opt != "" && strings.HasPrefix(full, opt) }
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "/") {
			if windows {
				return a + " (a bare argument is a command)"
			}
			return ""
		}
		opt := strings.ToLower(strings.TrimLeft(a, "-/"))
		switch {
		case isPrefix(opt, "command"), isPrefix(opt, "commandwithargs"), opt == "cwa",
			isPrefix(opt, "encodedcommand"), opt == "ec":
			return a
		case isPrefix(opt, "file"):
			return ""
		case isPrefix(opt, "executionpolicy"), opt == "ep", isPrefix(opt, "windowstyle"),
			isPrefix(opt, "workingdirectory"), opt == "wd", len(opt) > 2 && isPrefix(opt, "configurationname"),
			isPrefix(opt, "outputformat"), opt == "of", isPrefix(opt, "inputformat"), opt == "if",
			isPrefix(opt, "version"), isPrefix(opt, "settingsfile"), len(opt) > 1 && isPrefix(opt, "custompipename"):
			if takesValue(args, i) {
				i++
			}
		}
	}
	return ""
}
