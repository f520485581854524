// Package cli wires weft's packages into the `weft` command.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/logsink"
	"github.com/weft-dev/weft/internal/policy"
	"github.com/weft-dev/weft/internal/upstream"
)

// Version is weft's version, set at build time with -ldflags.
var Version = "0.1.0-dev"

// app carries what every command shares.
type app struct {
	configFlag string
	logLevel   string
	jsonOut    bool
	// asAgent is `weft plan --agent`: the agent whose tools plans use.
	asAgent string
	stdout  io.Writer
	stderr  io.Writer
	logger  *slog.Logger
	// logSink queues the log for stderr (nil until logging is set up).
	logSink *logsink.Sink
	// secrets masks configured secret values in logs and errors; it has
	// its own lock, since a running daemon updates it on each change.
	secrets policy.Secrets
	// connectDisabled makes mcp get connect a server with enabled = false.
	connectDisabled bool
}

// Main runs weft with args and returns the process exit code. Errors are
// printed as one line on stderr.
func Main(args []string) int {
	defer tuneGC()()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, os.Stdout, os.Stderr)
}

// run is Main with its context and output given: the CLI's tests run it
// in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr}
	root := a.rootCommand()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(a.errOut(), "weft: "+a.secrets.Redact(oneLine(err)))
	}
	a.closeLog()
	if err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return 1
	}
	return 0
}

// exitError carries a specific exit code.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "weft",
		Short:         "Make many MCP servers work as one",
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if a.logLevel == "" {
				a.logLevel = defaultLogLevel(cmd)
			}
			return a.setupLogging()
		},
	}
	root.SetVersionTemplate(versionLine() + "\n")
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.PersistentFlags().StringVar(&a.configFlag, "config", "", "weft.toml to use (default: $WEFT_CONFIG, ./weft.toml, ~/.weft/weft.toml)")
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "", "log level: debug, info, warn or error (logs go to stderr; default info for serve, mcp-server, run and chat, else warn)")
	root.AddCommand(a.serveCommand(), a.mcpServerCommand(), a.mcpCommand())
	root.AddCommand(a.runCommand(), a.chatCommand())
	root.AddCommand(a.planCommand())
	root.AddCommand(a.delegateCommand())
	root.AddCommand(a.clientCommand(), a.versionCommand())
	root.AddCommand(a.agentsCommand()) // agents.go
	requireKnownSubcommands(root)
	return root
}

func (a *app) setupLogging() error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(a.logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: use debug, info, warn or error", a.logLevel)
	}
	// The log never waits on stderr: a client may pipe it and never read it.
	a.logSink = logsink.New(a.stderr, 0)
	a.logger = slog.New(a.secrets.Handler(slog.NewTextHandler(a.logSink, &slog.HandlerOptions{Level: level})))
	slog.SetDefault(a.logger)
	upstream.Version = Version
	return nil
}

// errOut is where the final error line goes: behind the log, so it is not
// written ahead of records still queued, and never blocks weft's exit.
func (a *app) errOut() io.Writer {
	if a.logSink != nil {
		return a.logSink
	}
	return a.stderr
}

// closeLogTimeout bounds the flush of the log at exit.
const closeLogTimeout = time.Second

// closeLog writes what is left of the log, for at most closeLogTimeout.
func (a *app) closeLog() {
	if a.logSink == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeLogTimeout)
	defer cancel()
	a.logSink.Close(ctx)
}

// loadConfig reads the configuration the flags point to. It changes
// nothing of the app's but the (locked) secret masker.
func (a *app) loadConfig() (*config.Config, error) {
	cfg, err := config.Load(config.ResolvePath(a.configFlag))
	if err == nil {
		for _, w := range cfg.Warnings {
			a.logger.Warn(w)
		}
		a.secrets.Set(policy.SecretValues(cfg, os.Getenv))
	}
	return cfg, err
}

// startDaemon loads the config and starts a daemon over it: every command
// that runs servers (serve, mcp-server, run, chat, plan, delegate) starts
// this way. Close it with stopDaemon.
func (a *app) startDaemon(ctx context.Context) (*daemon.Daemon, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	d, err := daemon.New(cfg, daemon.Options{Logger: a.logger, Version: Version, Secrets: &a.secrets})
	if err != nil {
		return nil, err
	}
	if err := d.Start(ctx); err != nil {
		stopDaemon(d)
		return nil, err
	}
	return d, nil
}

// startSettled is startDaemon for one-shot commands (run, chat, plan,
// delegate): it waits for every server's first connection, so that they
// begin with the whole catalog.
func (a *app) startSettled(ctx context.Context) (*daemon.Daemon, error) {
	d, err := a.startDaemon(ctx)
	if err != nil {
		return nil, err
	}
	d.Settle(ctx)
	return d, nil
}

// stopDaemon drains the daemon's servers for at most shutdownGrace.
func stopDaemon(d *daemon.Daemon) {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	d.Close(ctx)
}
