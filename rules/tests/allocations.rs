//! How many allocations one `evaluate` of `git push origin main` makes, in the context the
//! benchmark uses (edit mode, the defaults, the case root): counted by a counting allocator that
//! only this test binary has, and failing above the budget of issue 23. Allocation is where the
//! rules' time went (each one a call into the allocator, in wasm a slow one), so the count is
//! held here, where a machine's speed does not move it.

use lembas_rules::permission::{evaluate, Action, Context, Mode, Request};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static COUNTING: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// At most this many allocations (and reallocations) for one `evaluate` of the line.
const BUDGET: usize = 20;

/// What one evaluate makes now (10 since stop 35: the line's characters, its four words and
/// their list, its command list, the command's text and its reading, the subcommand outside the
/// read-only grammar), plus a little room: so that nothing grows unseen under the budget.
const HELD: usize = 12;

/// The allocations and reallocations `f` makes. The fewest of five runs: the test harness's own
/// threads may allocate during one of them, and none of that is the rules'.
fn allocations_of(mut f: impl FnMut()) -> usize {
    (0..5)
        .map(|_| {
            let region = Region::new(COUNTING);
            f();
            let change = region.change();
            change.allocations + change.reallocations
        })
        .min()
        .unwrap_or(usize::MAX)
}

#[test]
fn one_evaluate_of_git_push_stays_within_its_allocation_budget() {
    let ctx = Context::new(Mode::Edit);
    let push = Request::bash("git push origin main");
    // The spec data is read once, on the first call; that is not one evaluate's cost.
    let first = evaluate(&push, &ctx);
    assert_eq!(first.action, Action::Ask, "{}", first.reason);
    let count = allocations_of(|| {
        std::hint::black_box(evaluate(std::hint::black_box(&push), &ctx));
    });
    println!("one evaluate of `git push origin main`: {count} allocations (budget {BUDGET})");
    // The counter counts: the reader keeps the line's characters and words in their own.
    assert!(
        count > 0,
        "no allocation was counted: the counting allocator is not in use"
    );
    assert!(
        count <= BUDGET,
        "one evaluate of `git push origin main` made {count} allocations; the budget is {BUDGET}"
    );
    assert!(
        count <= HELD,
        "one evaluate of `git push origin main` made {count} allocations, more than the {HELD} it \
         is held to (what it made, plus a little room): something allocates that did not"
    );
}
