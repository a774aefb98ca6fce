package sim

// TestTeam is the core's tests' copy of teamwork.Sim (team_test.go).
var TestTeam = testTeam
