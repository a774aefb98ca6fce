package main

import "github.com/medteam-bench/medteam/protocol"

// setLayout sets --prompt-layout ("" = the command's default, shared).
func setLayout(s *protocol.Settings, layout string) {
	if layout == "" {
		layout = protocol.LayoutShared
	}
	s.PromptLayout = layout
}
