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
	stdout     io.Writer
	stderr     io.Writer
	logger     *slog.Logger
	// logSink queues the log for stderr (nil until logging is set up).
	logSink *logsink.Sink
	// secrets masks configured secret values in logs and errors (SPEC S7).
	secrets policy.Secrets
	// adminToken is the bearer token of the HTTP face, sent to a live weft.
	adminToken string
}

// Main runs weft with args and returns the process exit code. Errors are
// printed as one line on stderr.
func Main(args []string) int {
	tuneGC()
	a := &app{stdout: os.Stdout, stderr: os.Stderr}
	root := a.rootCommand()
	root.SetArgs(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
			return a.setupLogging()
		},
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.PersistentFlags().StringVar(&a.configFlag, "config", "", "weft.toml to use (default: $WEFT_CONFIG, ./weft.toml, ~/.weft/weft.toml)")
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "info", "log level: debug, info, warn or error (logs go to stderr)")
	root.AddCommand(a.serveCommand(), a.mcpServerCommand(), a.mcpCommand())
	root.AddCommand(a.runCommand(), a.chatCommand())
	root.AddCommand(a.planCommand())
	root.AddCommand(a.delegateCommand())
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

// loadConfig reads the configuration the flags point to.
func (a *app) loadConfig() (*config.Config, error) {
	cfg, err := config.Load(config.ResolvePath(a.configFlag))
	if err == nil {
		a.secrets.Set(policy.SecretValues(cfg, os.Getenv))
		if cfg.Security.HTTPTokenEnv != "" {
			a.adminToken = os.Getenv(cfg.Security.HTTPTokenEnv) // for a live weft's admin API
		}
	}
	return cfg, err
}
