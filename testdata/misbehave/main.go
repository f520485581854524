// Command misbehave is a stdio MCP server (go-sdk) that misbehaves on purpose,
// for weft's reliability tests. --mode picks the misbehaviour:
//
//	normal   behaves (the default)
//	noinit   never answers initialize
//	hang     answers the handshake, then never answers a tool call
//	crash    exits in the middle of call number --crash-after + 1
//	garbage  prints a banner before and a garbage line after every message
//	bigline  writes one 64 MiB line on stdout when echo is called
//	flood    floods notifications (progress and log) without pause
//	sigterm  ignores SIGTERM and exits only 10 s after it
//	fork     starts a grandchild (itself in sleep mode) in its process group
//	sleep    sleeps an hour ignoring SIGTERM (the grandchild of fork)
//	daemon   like fork, but the grandchild leaves the group with setsid, still
//	         holding our stdout and stderr; the server itself ignores SIGTERM
//	         and stdin's end, as a wedged daemonizing wrapper does (Unix)
//	stderr   writes --stderr-bytes of log lines to stderr before serving
//
// Every mode but noinit and sleep serves two tools, echo and slow (sleeps
// --delay, or less: until --release-file exists); --counter-file adds a tool genN, where N counts the starts, so a
// restarted server lists a different tool set. --marker is ignored: tests put
// a unique value there to find every process a test started.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// options are the command-line flags.
type options struct {
	mode        string
	crashAfter  int
	delay       time.Duration
	releaseFile string
	pidFile     string
	counterFile string
	stderrBytes int
}

func main() {
	var o options
	flag.StringVar(&o.mode, "mode", "normal", "misbehaviour (see the package doc)")
	flag.IntVar(&o.crashAfter, "crash-after", 1, "crash mode: calls answered before the crash")
	flag.DurationVar(&o.delay, "delay", 2*time.Second, "how long the slow tool sleeps")
	flag.StringVar(&o.releaseFile, "release-file", "", "the slow tool answers early once this file exists")
	flag.StringVar(&o.pidFile, "pid-file", "", "write the process id here")
	flag.StringVar(&o.counterFile, "counter-file", "", "count starts here; the count names an extra tool")
	flag.IntVar(&o.stderrBytes, "stderr-bytes", 200<<10, "stderr mode: how much to write")
	flag.String("marker", "", "ignored; lets tests find their processes")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("misbehave: ")
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

func run(o options) error {
	if o.pidFile != "" {
		if err := os.WriteFile(o.pidFile, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			return fmt.Errorf("write pid file: %w", err)
		}
	}
	switch o.mode {
	case "noinit":
		return neverInitialize()
	case "sleep":
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(time.Hour)
		return nil
	case "sigterm":
		return ignoreSIGTERM(o)
	case "fork":
		if err := forkGrandchild(); err != nil {
			return err
		}
	case "daemon":
		if err := daemonize(); err != nil {
			return err
		}
		signal.Ignore(syscall.SIGTERM)
		err := serve(o)
		time.Sleep(time.Hour) // outlive stdin's end; only SIGKILL ends us
		return err
	case "stderr":
		floodStderr(o.stderrBytes)
	}
	return serve(o)
}

// neverInitialize reads whatever weft sends and never answers, then keeps
// running after stdin closes, as a wedged server does.
func neverInitialize() error {
	_, _ = io.Copy(io.Discard, os.Stdin)
	time.Sleep(time.Hour)
	return nil
}

// ignoreSIGTERM serves normally, but neither SIGTERM nor the end of stdin
// ends the process before 10 s have passed since SIGTERM.
func ignoreSIGTERM(o options) error {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	err := serve(o)
	<-term
	log.Print("SIGTERM received; exiting in 10 s")
	time.Sleep(10 * time.Second)
	return err
}

// forkGrandchild starts this program in sleep mode, sharing our stdout and
// stderr (as npx wrappers do) and staying in our process group.
func forkGrandchild() error { return startGrandchild(nil) }

// startGrandchild starts this program in sleep mode sharing our stdout and
// stderr; prepare, if set, adjusts the command first.
func startGrandchild(prepare func(*exec.Cmd)) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	args := append([]string{"--mode", "sleep"}, markerArgs()...)
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if prepare != nil {
		prepare(cmd)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start grandchild: %w", err)
	}
	log.Printf("grandchild %d started", cmd.Process.Pid)
	return nil
}

// floodStderr writes n bytes of numbered log lines to stderr.
func floodStderr(n int) {
	line := strings.Repeat("noise ", 15)
	for i, written := 0, 0; written < n; i++ {
		k, err := fmt.Fprintf(os.Stderr, "%06d %s\n", i, line)
		if err != nil {
			return
		}
		written += k
	}
}

// markerArgs returns our own --marker flag, for the grandchild to carry.
func markerArgs() []string {
	for i, a := range os.Args {
		if a == "--marker" && i+1 < len(os.Args) {
			return []string{"--marker", os.Args[i+1]}
		}
		if strings.HasPrefix(a, "--marker=") {
			return []string{a}
		}
	}
	return nil
}

// serve runs the MCP server over stdin/stdout until the client goes away.
func serve(o options) error {
	out := &stdout{w: os.Stdout, garbage: o.mode == "garbage"}
	if o.mode == "garbage" {
		out.line("Starting misbehave MCP server v0.0.1 ... ready!")
	}
	s := newServer(o, out)
	t := &mcp.IOTransport{Reader: os.Stdin, Writer: out}
	if err := s.Run(context.Background(), t); err != nil && err != io.EOF {
		return err
	}
	return nil
}

// stdout serialises writes so that the extra lines some modes print never
// land inside a protocol message.
type stdout struct {
	mu      sync.Mutex
	w       io.WriteCloser
	garbage bool
	n       int
}

func (s *stdout) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.w.Write(p)
	if err == nil && s.garbage {
		s.n++
		_, err = fmt.Fprintf(s.w, "garbage line %d: not JSON at all\n", s.n)
	}
	return n, err
}

func (s *stdout) Close() error { return s.w.Close() }

// line writes one raw line between protocol messages.
func (s *stdout) line(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = io.WriteString(s.w, text+"\n")
}

// bigLine writes one line of n bytes that starts like JSON, in chunks so
// that the server itself stays small.
func (s *stdout) bigLine(n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	chunk := []byte(strings.Repeat("x", 1<<20))
	if _, err := io.WriteString(s.w, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`); err != nil {
		return err
	}
	for written := 0; written < n; written += len(chunk) {
		if _, err := s.w.Write(chunk); err != nil {
			return err
		}
	}
	_, err := io.WriteString(s.w, "\"}}\n")
	return err
}
