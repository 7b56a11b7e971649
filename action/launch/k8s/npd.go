package k8s

// The configuration of node-problem-detector's custom plugin monitor, mirrored from NPD's own
// types (github.com/kubernetes/node-problem-detector, pkg/custompluginmonitor/types/config.go
// and types.go, and pkg/types/types.go for Condition; read at commit 6632ca6). NPD is not a
// dependency: these structs carry only the fields fabricctl writes, with NPD's JSON names, so
// that the rendered JSON decodes strictly into them and into NPD's own.

// NPDConfig is CustomPluginConfig.
type NPDConfig struct {
	Plugin           string          `json:"plugin"`
	PluginConfig     NPDGlobalConfig `json:"pluginConfig"`
	Source           string          `json:"source"`
	MetricsReporting *bool           `json:"metricsReporting,omitempty"`
	Conditions       []NPDCondition  `json:"conditions"`
	Rules            []NPDRule       `json:"rules"`
}

// NPDGlobalConfig is pluginGlobalConfig.
type NPDGlobalConfig struct {
	InvokeInterval                          string `json:"invoke_interval,omitempty"`
	Timeout                                 string `json:"timeout,omitempty"`
	MaxOutputLength                         *int   `json:"max_output_length,omitempty"`
	Concurrency                             *int   `json:"concurrency,omitempty"`
	EnableMessageChangeBasedConditionUpdate *bool  `json:"enable_message_change_based_condition_update,omitempty"`
}

// NPDCondition is a default condition (types.Condition without status and transition, which
// NPD fills in).
type NPDCondition struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// NPDRule is CustomRule.
type NPDRule struct {
	Type      string   `json:"type"` // "permanent" (sets Condition) or "temporary" (an event)
	Condition string   `json:"condition,omitempty"`
	Reason    string   `json:"reason"`
	Path      string   `json:"path"`
	Args      []string `json:"args,omitempty"`
	Timeout   string   `json:"timeout,omitempty"`
}
