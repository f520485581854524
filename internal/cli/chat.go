package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/llm"
)

const chatHelp = `Type a task and press Enter. Commands:
  /tools           list the tools the agent can use
  /servers         list the MCP servers with their status and circuit breaker
  /plan TASK       carry out TASK with plan_and_execute
  /help            this text
  /quit            end the session (so does end of input)`

func (a *app) chatCommand() *cobra.Command {
	var f agentFlags
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Talk with the agent: one task per line, with /tools, /servers and /plan",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.chat(cmd.Context(), cmd.InOrStdin(), f)
		},
	}
	f.add(cmd)
	return cmd
}

// chatSession is one `weft chat`: earlier tasks and answers carry over.
type chatSession struct {
	a       *app
	s       *agentSession
	f       agentFlags
	history []llm.Message
	totals  agent.Totals
}

func (a *app) chat(ctx context.Context, in io.Reader, f agentFlags) error {
	s, err := a.startAgent(ctx, f, printStepsTo(a.stdout))
	if err != nil {
		return err
	}
	defer s.close()
	c := &chatSession{a: a, s: s, f: f}
	interactive := isTerminal(in)
	if interactive {
		fmt.Fprintln(a.stdout, chatHelp)
	}
	done := make(chan struct{})
	defer close(done)
	lines, readErr := readLines(in, done)
	for {
		if interactive {
			fmt.Fprint(a.stdout, "> ")
		}
		var line string
		var ok bool
		select {
		case line, ok = <-lines:
		case <-ctx.Done():
		}
		if !ok || ctx.Err() != nil || !c.handle(ctx, strings.TrimSpace(line)) {
			break
		}
	}
	agent.WriteCost(a.stdout, "Session cost", c.totals)
	select {
	case err := <-readErr:
		return err
	default:
		return nil
	}
}

// readLines delivers the lines of in until its end or until done closes.
// Should chat return while the reader waits in Read (Ctrl-C at a terminal
// prompt), the goroutine ends with the process, which exits right after.
func readLines(in io.Reader, done <-chan struct{}) (<-chan string, <-chan error) {
	lines, errc := make(chan string), make(chan error, 1)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-done:
				return
			}
		}
		if err := sc.Err(); err != nil {
			errc <- fmt.Errorf("read input: %w", err)
		}
	}()
	return lines, errc
}

// handle acts on one line; false ends the session.
func (c *chatSession) handle(ctx context.Context, line string) bool {
	w := c.a.stdout
	cmd, rest, _ := strings.Cut(line, " ")
	switch cmd {
	case "":
	case "/quit", "/exit":
		return false
	case "/help":
		fmt.Fprintln(w, chatHelp)
	case "/tools":
		for _, t := range c.s.tools.Tools() {
			fmt.Fprintf(w, "%s\t%s\n", t.Name, firstLine(t.Description))
		}
	case "/servers":
		for _, s := range c.s.tools.Servers() {
			fmt.Fprintf(w, "%s\t%s\tbreaker %s\n", s.Name, s.Status, s.Breaker)
		}
	case "/plan":
		c.task(ctx, strings.TrimSpace(rest), agent.StrategyPlanAndExecute)
	default:
		if strings.HasPrefix(cmd, "/") {
			fmt.Fprintf(w, "unknown command %s; type /help\n", cmd)
			break
		}
		c.task(ctx, line, "")
	}
	return true
}

// task runs one task and keeps it and its answer as history.
func (c *chatSession) task(ctx context.Context, text, strategy string) {
	if text == "" {
		fmt.Fprintln(c.a.stdout, "say what to do after /plan")
		return
	}
	res, err := c.s.agent.Run(ctx, agent.Task{Text: text, Sender: c.f.senderID(), History: c.history, Strategy: strategy})
	if err != nil {
		fmt.Fprintf(c.a.stderr, "weft: %s\n", oneLine(err))
		return
	}
	agent.WriteSummary(c.a.stdout, res)
	c.totals.Merge(res.Totals)
	answer := res.Answer
	if answer == "" {
		answer = res.Message
	}
	c.history = append(c.history, llm.Message{Role: llm.RoleUser, Content: text}, llm.Message{Role: llm.RoleAssistant, Content: answer})
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// isTerminal reports whether r is an interactive terminal (then chat shows
// its help and a prompt; piped input gets neither).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
