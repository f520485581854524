// Command fakeclaude stands in for Claude Code in delegation tests. Its
// behaviour is chosen by FAKE_CLAUDE_MODE: ok (a tool_use, a text and a
// success result echoing the task, its depth, its reply cap and its MCP config, costing 0.0375 USD), garbage
// (non-JSON output), fail (exit 3 with a message on stderr), maxturns (an
// error_max_turns result) or hang (starts a grandchild, says its pid, and blocks until killed).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

func main() {
	args := os.Args[1:]
	task := ""
	cfgFile := ""
	for i, a := range args {
		if a == "--" && i+1 < len(args) {
			task = args[i+1]
		}
		if a == "--mcp-config" && i+1 < len(args) {
			cfgFile = args[i+1]
		}
	}
	switch os.Getenv("FAKE_CLAUDE_MODE") {
	case "garbage":
		fmt.Println("Welcome to not-Claude! <html>")
	case "fail":
		fmt.Fprintln(os.Stderr, "fakeclaude: invalid API key")
		os.Exit(3)
	case "maxturns":
		line(map[string]any{"type": "result", "subtype": "error_max_turns", "is_error": true, "num_turns": 3, "total_cost_usd": 0.125})
		os.Exit(1)
	case "hang":
		// A grandchild shows whether weft ends the whole process group.
		sleeper := exec.Command("sleep", "3600")
		if err := sleeper.Start(); err != nil {
			os.Exit(4)
		}
		line(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{
			map[string]any{"type": "text", "text": fmt.Sprintf("working pid=%d", sleeper.Process.Pid)}}}})
		time.Sleep(time.Hour)
	default:
		cfg, _ := os.ReadFile(cfgFile)
		st, _ := os.Stat(cfgFile)
		mode := ""
		if st != nil {
			mode = st.Mode().Perm().String()
		}
		line(map[string]any{"type": "system", "subtype": "init"})
		line(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{
			map[string]any{"type": "tool_use", "name": "mcp__weft__fake__echo", "input": map[string]any{"text": task}}}}})
		line(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{
			map[string]any{"type": "text", "text": "thinking about " + task}}}})
		result := fmt.Sprintf("done: %s depth=%s max_tokens=%s mode=%s args=%s config=%s", task, os.Getenv("WEFT_DELEGATION_DEPTH"),
			os.Getenv("CLAUDE_CODE_MAX_OUTPUT_TOKENS"), mode, strings.Join(args, " "), strings.TrimSpace(string(cfg)))
		line(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": result, "num_turns": 2, "total_cost_usd": 0.0375})
	}
}

func line(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}
