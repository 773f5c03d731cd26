package trace

// SetLoopRuleForTest is setLoopRuleForTest, for the external tests.
var SetLoopRuleForTest = setLoopRuleForTest
