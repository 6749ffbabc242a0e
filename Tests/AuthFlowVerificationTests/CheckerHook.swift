import AuthFlowCore
import AuthFlowVerification

/// Runs the model checker on one thread over its first `maxStates` states, showing `hook` every
/// step it takes (the machine before the step, the event, the instant) before the reducer
/// handles it: how a test looks at every (state, event) of a bounded space.
func runChecker(
  maxStates: Int, hook: @escaping @Sendable (AuthMachine, Event, Instant) -> Void
) -> ModelChecker.Result {
  var options = ModelChecker.Options()
  options.maxStates = maxStates
  options.threads = 1
  options.reducer = { machine, event, now, effects in
    hook(machine, event, now)
    machine.handle(event, now: now, into: &effects)
  }
  return ModelChecker(options: options).run()
}
