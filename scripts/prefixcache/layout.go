package main

import "github.com/medteam-bench/medteam/protocol"

// setLayout sets the prompt layout (none before --prompt-layout exists).
func setLayout(s *protocol.Settings, layout string) {}
