package gateway

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
)

// ManageToolName is the built-in tool that lets an AI manage servers.
const ManageToolName = "mcp_manage"

// ErrNotConnected is matched by the error of a change whose server could
// not connect (the change was undone and nothing was written).
var ErrNotConnected = errors.New("could not connect")

// Manager changes the servers weft runs together with its config file, as
// one transaction (internal/daemon implements it). mcp_manage and the admin
// API use it.
type Manager interface {
	// Config is the config last applied; callers must not modify it.
	Config() *config.Config
	// ConfigHash is weft.toml's content hash as last applied.
	ConfigHash() string
	// AddServer connects s and records it; one that cannot connect is not
	// recorded (unless NoVerify).
	AddServer(ctx context.Context, s *config.Server, o ChangeOptions) (ChangeResult, error)
	// EnableServer starts a configured, disabled server and records it.
	EnableServer(ctx context.Context, name string) (ChangeResult, error)
	// RemoveServer deletes a server from the config, then drains it.
	RemoveServer(ctx context.Context, name string, o ChangeOptions) (ChangeResult, error)
}

// ChangeOptions qualify one change.
type ChangeOptions struct {
	// IfMatch, when set, is the config hash the change is based on.
	IfMatch string
	// NoVerify records a server without waiting for it to connect.
	NoVerify bool
}

// ChangeResult is what a change left behind.
type ChangeResult struct {
	Status hub.ServerStatus `json:"status"`
	Hash   string           `json:"config_hash"`
}

// ManageOptions configure mcp_manage.
type ManageOptions struct {
	// Manager makes the changes; nil disables add and remove.
	Manager Manager
	// ApprovalTimeout bounds the wait for the human's answer (default
	// DefaultApprovalTimeout).
	ApprovalTimeout time.Duration
}

// manageIn is mcp_manage's input.
type manageIn struct {
	Action  string            `json:"action"`
	Name    string            `json:"name,omitempty" jsonschema:"server name (1-64 of A-Z a-z 0-9 _ -); required for add and remove"`
	Target  string            `json:"target,omitempty" jsonschema:"for add: the command to run (no shell) or an http(s) URL"`
	Args    []string          `json:"args,omitempty" jsonschema:"for add: the command's arguments"`
	Env     map[string]string `json:"env,omitempty" jsonschema:"for add: environment variables of a stdio server"`
	Headers map[string]string `json:"headers,omitempty" jsonschema:"for add: HTTP headers of a remote server"`
	Type    string            `json:"type,omitempty" jsonschema:"for add: transport (default: inferred from target)"`
}

func (g *Gateway) addManageTool() {
	mcp.AddTool(g.server, &mcp.Tool{
		Name: ManageToolName,
		Description: "List, add or remove the MCP servers weft connects to. action=list shows every server and its status. " +
			"action=add connects a server (name, target = command or http(s) URL, args, env, headers, type) and records it in weft's config; " +
			"depending on weft's autonomy setting the user may be asked to approve it first. action=remove stops a server and deletes it from the config.",
		InputSchema: inputSchema[manageIn](func(p map[string]*jsonschema.Schema) {
			p["action"].Enum = []any{"list", "add", "remove"}
			p["type"].Enum = []any{"stdio", "http", "sse"}
		}),
	}, relayedFor(g, func(ctx context.Context, req *mcp.CallToolRequest, in manageIn) (*mcp.CallToolResult, any, error) {
		res, err := g.manage(ctx, req, &in)
		return res, nil, err
	}))
}

func (g *Gateway) manage(ctx context.Context, req *mcp.CallToolRequest, in *manageIn) (*mcp.CallToolResult, error) {
	switch in.Action {
	case "list":
		return jsonResult(struct {
			Servers []hub.ServerStatus `json:"servers"`
		}{redactStatuses(g.statusesInView())})
	case "add", "remove":
	default:
		return errorResult(fmt.Errorf("%s: action %q is unknown; use list, add or remove", ManageToolName, in.Action)), nil
	}
	cfg, err := g.manageConfig()
	if err != nil {
		return errorResult(err), nil
	}
	if cfg.Security.Autonomy == config.AutonomyReadOnly {
		return errorResult(fmt.Errorf("%s %s refused: security.autonomy is read_only, so an AI may only list servers; ask the user to change it with `weft mcp %s`", ManageToolName, in.Action, in.Action)), nil
	}
	var msg string
	if in.Action == "add" {
		msg, err = g.manageAdd(ctx, req.Session, cfg, in)
	} else {
		msg, err = g.manageRemove(ctx, req.Session, cfg, in.Name)
	}
	if err != nil {
		g.logger.Warn("mcp_manage refused", "action", in.Action, "server", in.Name, "asked_by", askedBy(req.Session), "reason", err.Error())
		return errorResult(err), nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
}

func (g *Gateway) manageConfig() (*config.Config, error) {
	if g.opts.Manage.Manager == nil && g.View().IsAgent() {
		return nil, fmt.Errorf("%s: agent %s cannot change servers from here; edit its config (`weft agents show %s` names the file)", ManageToolName, g.View().Name(), g.View().Name())
	}
	if g.opts.Manage.Manager == nil {
		return nil, fmt.Errorf("%s: this weft has no config file to record changes in; add servers with `weft mcp add`", ManageToolName)
	}
	return g.opts.Manage.Manager.Config(), nil
}

// manageAdd enables a pre-approved entry or adds a new one, after the
// approval the autonomy level asks for. Nothing is started or written until
// then; a server that fails to connect is not written either.
func (g *Gateway) manageAdd(ctx context.Context, ss *mcp.ServerSession, cfg *config.Config, in *manageIn) (string, error) {
	if !config.ValidName(in.Name) {
		return "", fmt.Errorf("%s add: name %q must be 1-64 characters of A-Z a-z 0-9 _ -", ManageToolName, in.Name)
	}
	if _, running := g.hub.Config(in.Name); running {
		return "", fmt.Errorf("%s add: server %q is already running; remove it first to change it", ManageToolName, in.Name)
	}
	if existing, ok := cfg.Servers[in.Name]; ok {
		return g.enableConfigured(ctx, ss, cfg, existing, in)
	}
	s := &config.Server{Name: in.Name, Target: in.Target, Args: in.Args, Env: in.Env, Headers: in.Headers, Type: in.Type,
		TimeoutMS: config.DefaultTimeoutMS, Source: cfg.Path}
	if s.Type == "" {
		s.Type = s.Transport()
	}
	warnings, err := s.ValidateFromAI(cfg.Security.BlockPrivateURLs)
	if err != nil {
		return "", fmt.Errorf("%s add refused: %w", ManageToolName, err)
	}
	if cfg.Security.Autonomy != config.AutonomyFull {
		prompt := fmt.Sprintf("An AI (%s) asks weft to add and start the MCP server %q:\n%s\nApprove?", askedBy(ss), s.Name, describeServer(s))
		if err := askApproval(ctx, ss, g.opts.Manage.ApprovalTimeout, prompt); err != nil {
			return "", fmt.Errorf("%s add %s: %w; nothing was started or written", ManageToolName, s.Name, err)
		}
	}
	res, err := g.opts.Manage.Manager.AddServer(ctx, s, ChangeOptions{})
	if err != nil {
		return "", fmt.Errorf("%s add %s: %w", ManageToolName, s.Name, err)
	}
	g.logger.Info("mcp_manage added a server", "server", s.Name, "target", s.Redacted().Target, "asked_by", askedBy(ss),
		"autonomy", cfg.Security.Autonomy, "warnings", warnings)
	return fmt.Sprintf("Added MCP server '%s' with %d tools", s.Name, res.Status.Tools), nil
}

// enableConfigured starts an entry the user already wrote into the config:
// it is pre-approved, so no question is asked. An add that names it with
// another target is refused rather than silently ignored.
func (g *Gateway) enableConfigured(ctx context.Context, ss *mcp.ServerSession, cfg *config.Config, s *config.Server, in *manageIn) (string, error) {
	if in.Target != "" && in.Target != s.Target {
		return "", fmt.Errorf("%s add: a server named %q is already configured with another target; use that entry as it is or pick another name", ManageToolName, s.Name)
	}
	res, err := g.opts.Manage.Manager.EnableServer(ctx, s.Name)
	if err != nil {
		return "", fmt.Errorf("%s add %s: %w", ManageToolName, s.Name, err)
	}
	g.logger.Info("mcp_manage enabled a configured server", "server", s.Name, "asked_by", askedBy(ss), "autonomy", cfg.Security.Autonomy)
	return fmt.Sprintf("Enabled configured MCP server '%s' with %d tools", s.Name, res.Status.Tools), nil
}

// manageRemove stops a server and deletes its entry; under supervised
// autonomy the user approves first.
func (g *Gateway) manageRemove(ctx context.Context, ss *mcp.ServerSession, cfg *config.Config, name string) (string, error) {
	s, ok := cfg.Servers[name]
	if !ok {
		return "", fmt.Errorf("%s remove: server %q is not configured; list shows the servers", ManageToolName, name)
	}
	if s.Source != cfg.Path {
		return "", fmt.Errorf("%s remove: server %q comes from %s, which weft does not edit; ask the user to remove it there", ManageToolName, name, s.Source)
	}
	if cfg.Security.Autonomy != config.AutonomyFull {
		prompt := fmt.Sprintf("An AI (%s) asks weft to stop the MCP server %q and delete it from %s:\n%s\nApprove?", askedBy(ss), name, cfg.Path, describeServer(s.Redacted()))
		if err := askApproval(ctx, ss, g.opts.Manage.ApprovalTimeout, prompt); err != nil {
			return "", fmt.Errorf("%s remove %s: %w; nothing was stopped or written", ManageToolName, name, err)
		}
	}
	if _, err := g.opts.Manage.Manager.RemoveServer(ctx, name, ChangeOptions{}); err != nil {
		return "", fmt.Errorf("%s remove %s: %w", ManageToolName, name, err)
	}
	g.logger.Info("mcp_manage removed a server", "server", name, "asked_by", askedBy(ss), "autonomy", cfg.Security.Autonomy)
	return fmt.Sprintf("Removed MCP server '%s'", name), nil
}

// redactStatuses masks a password in each target URL.
func redactStatuses(in []hub.ServerStatus) []hub.ServerStatus {
	out := make([]hub.ServerStatus, len(in))
	for i, st := range in {
		st.Target = (&config.Server{Target: st.Target}).Redacted().Target
		out[i] = st
	}
	return out
}
