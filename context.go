package kiln

import (
	"context"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// Cancellation (Func.RunContext, RunAllContext, RunIntoContext,
// EvalContext, EvalAllContext). A context with a Done channel is handed
// to the backend when its executable is a kernels.ContextRunner (the CPU
// and OpenCL backends are), which looks at it between kernels, on every
// loop iteration and at block boundaries inside long kernels; for any
// other backend the context is checked before and after the run. A
// context whose Done is nil (context.Background, context.TODO) is never
// looked at again: the plain Run, RunAll and RunInto are the Context forms
// with context.Background and cost nothing more.

// contextError is ctx's error as a stopped run reports it, or nil.
func contextError(ctx context.Context) error {
	if ctx.Done() == nil {
		return nil
	}
	return kernels.ContextError(ctx)
}

// runContext runs exe on inputs under ctx.
func runContext(ctx context.Context, exe kernels.Executable, inputs []*tensor.Array) ([]*tensor.Array, error) {
	if ctx.Done() == nil {
		return exe.Run(inputs)
	}
	if cr, ok := exe.(kernels.ContextRunner); ok {
		return cr.RunContext(ctx, inputs)
	}
	if err := kernels.ContextError(ctx); err != nil {
		return nil, err
	}
	outs, err := exe.Run(inputs)
	if err != nil {
		return nil, err
	}
	if err := kernels.ContextError(ctx); err != nil {
		return nil, err
	}
	return outs, nil
}

// runIntoContext runs exe into outputs under ctx.
func runIntoContext(ctx context.Context, exe kernels.Executable, outputs, inputs []*tensor.Array) error {
	if ctx.Done() == nil {
		return exe.RunInto(outputs, inputs)
	}
	if cr, ok := exe.(kernels.ContextRunner); ok {
		return cr.RunIntoContext(ctx, outputs, inputs)
	}
	if err := kernels.ContextError(ctx); err != nil {
		return err
	}
	if err := exe.RunInto(outputs, inputs); err != nil {
		return err
	}
	return kernels.ContextError(ctx)
}
