package trace

// Test hooks for the external tests (package trace_test).
var SetLoopRuleForTestHook = SetLoopRuleForTest
