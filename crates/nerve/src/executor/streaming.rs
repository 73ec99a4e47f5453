//! The streaming executor. Calls are added the moment their `tool_use` block is complete; a
//! scheduler task starts each one as soon as the concurrency rules allow, passes progress through
//! at once, and hands out results strictly in request order.
//!
//! States: queued → executing → completed → yielded. A safe call starts only if everything executing
//! is safe (and the cap is not reached); an unsafe call starts only when nothing executes, and no
//! later call overtakes it.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tokio_util::task::AbortOnDropHandle;

use crate::errors::ErrorClass;
use crate::events::Event;
use crate::executor::input_is_concurrency_safe;
use crate::permissions::{ModeSwitch, switch_mode};
use crate::pipeline::{CallOutcome, Pipeline, ToolCall, prepare_input};
use crate::tool::{ContextModifier, InterruptBehavior, ProgressSink, ToolUseContext};

/// Default cap on calls running at once.
pub const DEFAULT_MAX_CONCURRENCY: usize = 10;

/// Executor settings.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// Most calls running at once.
    pub max_concurrency: usize,
    /// Mode changes asked for while the turn runs, applied before the next call starts.
    pub mode_switch: ModeSwitch,
    /// Fired when the user sends a new message while tools run: calls whose tool's
    /// [`InterruptBehavior`] is `Cancel` are stopped and answered as interrupted, calls not started
    /// yet are answered so too, and `Block` calls run to completion.
    pub interrupt: CancellationToken,
}

impl Default for ExecutorOptions {
    fn default() -> Self {
        Self {
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            mode_switch: ModeSwitch::default(),
            interrupt: CancellationToken::new(),
        }
    }
}

enum Command {
    Add(ToolCall),
    Refuse(ToolCall, Box<CallOutcome>),
    Close,
}

/// Handle to a running executor for one turn. It owns the work it started: dropping it (a turn
/// whose future is dropped) aborts the scheduler, and with it every call still running, so no tool
/// runs on unsupervised.
pub struct StreamingExecutor {
    commands: mpsc::UnboundedSender<Command>,
    results: mpsc::UnboundedReceiver<CallOutcome>,
    task: AbortOnDropHandle<ToolUseContext>,
    initial_ctx: ToolUseContext,
}

impl std::fmt::Debug for StreamingExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StreamingExecutor")
    }
}

impl StreamingExecutor {
    /// Starts the scheduler. `ctx.exec.cancel` is the turn's token: cancelling it aborts every call.
    pub fn start(pipeline: Arc<Pipeline>, ctx: ToolUseContext, options: ExecutorOptions) -> Self {
        let (commands, command_rx) = mpsc::unbounded_channel();
        let (results_tx, results) = mpsc::unbounded_channel();
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let initial_ctx = ctx.clone();
        let scheduler = Scheduler {
            turn_cancel: ctx.exec.cancel.clone(),
            pipeline,
            ctx,
            options,
            entries: Vec::new(),
            next_yield: 0,
            batch_counter: 0,
            batch_tokens: HashMap::new(),
            failed_in_batch: HashMap::new(),
            queued_modifiers: Vec::new(),
            done_tx,
            results_tx,
            calls: JoinSet::new(),
        };
        let task = AbortOnDropHandle::new(tokio::spawn(scheduler.run(command_rx, done_rx)));
        Self {
            commands,
            results,
            task,
            initial_ctx,
        }
    }

    /// Adds a call whose block is complete.
    pub fn add(&self, call: ToolCall) {
        let _ = self.commands.send(Command::Add(call));
    }

    /// Adds a call that is answered without running (its input never arrived whole, or is too
    /// large to keep): it takes its place in request order like any other call, and its card
    /// shows the answer.
    pub fn refuse(&self, call: ToolCall, outcome: CallOutcome) {
        let _ = self.commands.send(Command::Refuse(call, Box::new(outcome)));
    }

    /// No more calls will be added this turn.
    pub fn close(&self) {
        let _ = self.commands.send(Command::Close);
    }

    /// The next result in request order; `None` once every added call has been answered after
    /// [`StreamingExecutor::close`].
    pub async fn next_result(&mut self) -> Option<CallOutcome> {
        self.results.recv().await
    }

    /// Closes, collects the remaining results, and returns them with the context after every
    /// modifier was applied.
    pub async fn finish(mut self) -> (Vec<CallOutcome>, ToolUseContext) {
        self.close();
        let mut rest = Vec::new();
        while let Some(r) = self.results.recv().await {
            rest.push(r);
        }
        let ctx = match self.task.await {
            Ok(ctx) => ctx,
            // The scheduler does not panic by design; if it ever did, the context changes of this
            // turn are dropped rather than half-applied.
            Err(e) => {
                tracing::error!(error = %e, "tool scheduler task failed");
                self.initial_ctx
            }
        };
        (rest, ctx)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Queued,
    Executing,
    Completed,
    Yielded,
}

struct Entry {
    call: ToolCall,
    /// The input as prepared when the call was queued (none for an unknown tool), handed to the
    /// pipeline when the call starts so it is read once.
    prepared: Option<crate::pipeline::PreparedCall>,
    tool_name: String,
    summary: String,
    safe: bool,
    batch_id: u64,
    status: Status,
    outcome: Option<CallOutcome>,
    started: Option<Instant>,
    /// What a new user message does to it while it runs.
    behavior: InterruptBehavior,
    /// Whether its failure cancels its running siblings ([`crate::tool::Tool::cancels_siblings_on_failure`]).
    cancels_siblings: bool,
    /// The call's own token (a child of its batch's), so an interrupt can stop it alone.
    token: Option<CancellationToken>,
}

struct Scheduler {
    pipeline: Arc<Pipeline>,
    ctx: ToolUseContext,
    turn_cancel: CancellationToken,
    options: ExecutorOptions,
    entries: Vec<Entry>,
    next_yield: usize,
    batch_counter: u64,
    /// One token per concurrent batch, child of the turn's: a failed command cancels its siblings
    /// without ending the turn.
    batch_tokens: HashMap<u64, CancellationToken>,
    /// The failed call that cancelled each batch, for the siblings' results.
    failed_in_batch: HashMap<u64, String>,
    queued_modifiers: Vec<(usize, ContextModifier)>,
    done_tx: mpsc::UnboundedSender<(usize, CallOutcome)>,
    results_tx: mpsc::UnboundedSender<CallOutcome>,
    /// The running calls' tasks: dropped with the scheduler (its task aborted), which aborts them.
    calls: JoinSet<()>,
}

impl Scheduler {
    async fn run(
        mut self,
        mut commands: mpsc::UnboundedReceiver<Command>,
        mut done: mpsc::UnboundedReceiver<(usize, CallOutcome)>,
    ) -> ToolUseContext {
        let mut closed = false;
        let mut aborted = false;
        let mut interrupted = false;
        let interrupt = self.options.interrupt.clone();
        loop {
            if !aborted && self.turn_cancel.is_cancelled() {
                aborted = true;
                self.answer_queued_after_abort();
            }
            if !interrupted && interrupt.is_cancelled() {
                interrupted = true;
                self.interrupt_for_user_message();
            }
            self.start_runnable();
            self.yield_ready();
            if closed && self.next_yield == self.entries.len() {
                break;
            }
            tokio::select! {
                cmd = commands.recv(), if !closed => match cmd {
                    Some(Command::Add(call)) => self.enqueue(call),
                    Some(Command::Refuse(call, outcome)) => self.enqueue_refused(call, *outcome),
                    Some(Command::Close) | None => closed = true,
                },
                Some((idx, outcome)) = done.recv() => self.complete(idx, outcome),
                () = self.turn_cancel.cancelled(), if !aborted => {}
                () = interrupt.cancelled(), if !interrupted => {}
            }
        }
        self.apply_queued_modifiers();
        self.ctx
    }

    /// A refused call: its own batch, answered at once, yielded in its place.
    fn enqueue_refused(&mut self, call: ToolCall, outcome: CallOutcome) {
        let tool = self.pipeline.pool().find(&call.name);
        let tool_name = tool.map_or_else(|| call.name.clone(), |t| t.name().to_string());
        let kind = tool.map_or(nerve_protocol::ToolKind::Other, |t| t.kind());
        let display_name = tool.map_or_else(|| call.name.clone(), |t| t.user_facing_name(None));
        self.batch_counter = self.pipeline.next_batch_id();
        let batch_id = self.batch_counter;
        self.pipeline.events().emit(Event::ToolQueued {
            tool_use_id: call.id.clone(),
            tool_name: tool_name.clone(),
            kind,
            display_name,
            // Its input was not kept: there is nothing to summarise.
            summary: String::new(),
            batch_id,
            concurrent: false,
            destructive: false,
            sandbox: None,
        });
        let idx = self.entries.len();
        self.entries.push(Entry {
            call,
            prepared: None,
            tool_name,
            summary: String::new(),
            safe: false,
            batch_id,
            status: Status::Queued,
            outcome: None,
            started: None,
            behavior: InterruptBehavior::Block,
            cancels_siblings: false,
            token: None,
        });
        self.finish_entry(idx, outcome, 0);
    }

    fn enqueue(&mut self, call: ToolCall) {
        let pool = self.pipeline.pool();
        let tool = pool.find(&call.name);
        let prepared = tool.map(|t| prepare_input(pool, t.as_ref(), call.input.clone()));
        let valid = match (tool, &prepared) {
            (Some(tool), Some(Ok(input))) => Some((tool, input)),
            _ => None,
        };
        // Fails closed: an unknown tool or an invalid input runs alone.
        let safe = valid.is_some_and(|(tool, input)| input_is_concurrency_safe(tool.as_ref(), input));
        let tool_name = tool.map_or_else(|| call.name.clone(), |t| t.name().to_string());
        // An unknown tool is of no known kind, and goes by the name the model gave.
        let kind = tool.map_or(nerve_protocol::ToolKind::Other, |t| t.kind());
        let display_name = match (tool, valid) {
            (Some(tool), Some((_, input))) => tool.user_facing_name(Some(input)),
            (Some(tool), None) => tool.user_facing_name(None),
            (None, _) => call.name.clone(),
        };
        // An unknown tool blocks: its call is answered at once anyway.
        let behavior = tool.map_or(InterruptBehavior::Block, |t| t.interrupt_behavior());
        let cancels_siblings = tool.is_some_and(|t| t.cancels_siblings_on_failure());
        let destructive = valid.is_some_and(|(tool, input)| tool.is_destructive(input, &self.ctx.exec.cwd));
        let sandbox = valid.and_then(|(tool, input)| tool.sandbox_state(input, &self.ctx));
        // The card says what an invalid call tried, as far as its input reads.
        let summary = match (tool, valid) {
            (_, Some((tool, input))) => tool.summary(input, &self.ctx.exec.cwd),
            (Some(tool), None) => tool.summary(&tool.prepare(call.input.clone()), &self.ctx.exec.cwd),
            (None, None) => String::new(),
        };
        let joins_last = safe && self.entries.last().is_some_and(|e| e.safe);
        if !joins_last {
            self.batch_counter = self.pipeline.next_batch_id();
        }
        let batch_id = self.batch_counter;
        self.pipeline.events().emit(Event::ToolQueued {
            tool_use_id: call.id.clone(),
            tool_name: tool_name.clone(),
            kind,
            display_name,
            summary: summary.clone(),
            batch_id,
            concurrent: safe,
            destructive,
            sandbox,
        });
        let idx = self.entries.len();
        self.entries.push(Entry {
            call,
            prepared: match (tool, prepared) {
                (Some(tool), Some(input)) => Some(crate::pipeline::PreparedCall {
                    tool: std::sync::Arc::clone(tool),
                    input,
                }),
                _ => None,
            },
            tool_name,
            summary,
            safe,
            batch_id,
            status: Status::Queued,
            outcome: None,
            started: None,
            behavior,
            cancels_siblings,
            token: None,
        });
        if self.turn_cancel.is_cancelled() {
            self.synthesize(idx, Synth::Interrupted);
        } else if self.options.interrupt.is_cancelled() {
            self.synthesize(idx, Synth::InterruptedByMessage);
        } else if let Some(failed) = self.failed_in_batch.get(&batch_id).cloned() {
            self.synthesize(idx, Synth::SiblingFailed(failed));
        }
    }

    fn executing(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.status == Status::Executing)
    }

    fn can_execute(&self, safe: bool) -> bool {
        let count = self.executing().count();
        count == 0 || (safe && count < self.options.max_concurrency && self.executing().all(|e| e.safe))
    }

    fn start_runnable(&mut self) {
        if self.turn_cancel.is_cancelled() || self.options.interrupt.is_cancelled() {
            return;
        }
        for i in 0..self.entries.len() {
            if self.entries[i].status != Status::Queued {
                continue;
            }
            if self.can_execute(self.entries[i].safe) {
                self.start(i);
            } else if !self.entries[i].safe {
                // An unsafe call keeps its place: nothing after it may overtake it.
                break;
            }
        }
    }

    fn start(&mut self, idx: usize) {
        if let Some(mode) = self.options.mode_switch.take() {
            self.apply_modifier(ContextModifier::new(move |mut ctx| {
                // The front-end checked the mode against the project's settings before asking;
                // a refusal here keeps the mode in force, which is the safe outcome.
                if let Err(refused) = switch_mode(&mut ctx.permissions, mode) {
                    tracing::warn!(%refused, "a requested mode switch was refused");
                }
                ctx
            }));
        }
        let batch_id = self.entries[idx].batch_id;
        let parent = self.turn_cancel.clone();
        let batch_token = self
            .batch_tokens
            .entry(batch_id)
            .or_insert_with(|| parent.child_token())
            .clone();
        let call_token = batch_token.child_token();
        let call_ctx = self.ctx.with_cancel(call_token.clone());
        let entry = &mut self.entries[idx];
        entry.token = Some(call_token);
        entry.status = Status::Executing;
        entry.started = Some(Instant::now());
        let call = entry.call.clone();
        let prepared = entry.prepared.take();
        let tool_name = entry.tool_name.clone();
        let events = self.pipeline.events().clone();
        events.emit(Event::ToolStarted {
            tool_use_id: call.id.clone(),
        });
        let progress_events = events;
        let progress = ProgressSink::new(
            &call.id,
            Arc::new(move |id: &str, p| {
                progress_events.emit(Event::ToolProgress {
                    tool_use_id: id.to_string(),
                    progress: p,
                });
            }),
        );
        let pipeline = Arc::clone(&self.pipeline);
        let done = self.done_tx.clone();
        self.calls.spawn(async move {
            let run = AssertUnwindSafe(pipeline.run_prepared(&call, prepared, &call_ctx, &progress))
                .catch_unwind()
                .await;
            let outcome = run.unwrap_or_else(|_| CallOutcome::crashed(&call, &tool_name));
            let _ = done.send((idx, outcome));
        });
    }

    fn complete(&mut self, idx: usize, mut outcome: CallOutcome) {
        // Reaps the finished calls' tasks (each sent its outcome before ending).
        while self.calls.try_join_next().is_some() {}
        let Some(entry) = self.entries.get_mut(idx) else {
            return;
        };
        if entry.status != Status::Executing {
            return;
        }
        let batch_id = entry.batch_id;
        if self.options.interrupt.is_cancelled()
            && entry.behavior == InterruptBehavior::Cancel
            && outcome.error_class == Some(ErrorClass::Cancelled)
        {
            outcome = CallOutcome::interrupted_by_message(&entry.call, &entry.tool_name);
        }
        if let Some(failed) = self.failed_in_batch.get(&batch_id)
            && outcome.error_class == Some(ErrorClass::Cancelled)
            && !self.turn_cancel.is_cancelled()
        {
            outcome = CallOutcome::sibling_failed(&entry.call, &entry.tool_name, failed);
        }
        // A failed command in a parallel batch stops its running siblings; the turn goes on.
        if entry.safe
            && outcome.is_error
            && outcome.error_class != Some(ErrorClass::Cancelled)
            && entry.cancels_siblings
        {
            let label = if entry.summary.is_empty() {
                entry.tool_name.clone()
            } else {
                format!("{} · {}", entry.tool_name, entry.summary)
            };
            self.failed_in_batch.insert(batch_id, label.clone());
            if let Some(token) = self.batch_tokens.get(&batch_id) {
                token.cancel();
            }
            for j in 0..self.entries.len() {
                if self.entries[j].batch_id == batch_id && self.entries[j].status == Status::Queued {
                    self.synthesize(j, Synth::SiblingFailed(label.clone()));
                }
            }
        }
        if let Some(modifier) = outcome.context_modifier.take() {
            if self.entries[idx].safe {
                self.queued_modifiers.push((idx, modifier));
            } else {
                // A serial call's change applies before the next call starts.
                self.apply_modifier(modifier);
            }
        }
        let elapsed = self.entries[idx]
            .started
            .map_or(0, |s| s.elapsed().as_millis() as u64);
        self.finish_entry(idx, outcome, elapsed);
        if self.executing().count() == 0 {
            self.apply_queued_modifiers();
        }
    }

    /// Concurrent calls' context changes apply after their batch, in request order, so the result
    /// never depends on which call happened to finish first.
    fn apply_queued_modifiers(&mut self) {
        let mut queued = std::mem::take(&mut self.queued_modifiers);
        queued.sort_by_key(|(idx, _)| *idx);
        for (_, modifier) in queued {
            self.apply_modifier(modifier);
        }
    }

    /// Applies one context change and tells front-ends about the parts they show (the mode and
    /// the task list).
    fn apply_modifier(&mut self, modifier: ContextModifier) {
        let (mode, todos) = (self.ctx.permissions.mode, Arc::clone(&self.ctx.exec.todos));
        self.ctx = modifier.apply(self.ctx.clone());
        if self.ctx.permissions.mode != mode {
            self.pipeline.events().emit(Event::ModeChanged {
                mode: self.ctx.permissions.mode,
            });
        }
        if !Arc::ptr_eq(&todos, &self.ctx.exec.todos) && *todos != *self.ctx.exec.todos {
            self.pipeline.events().emit(Event::TodosChanged {
                todos: self.ctx.exec.todos.as_ref().clone(),
            });
        }
    }

    /// The user sent a new message: calls not started are answered as interrupted, running ones
    /// that may be cancelled are stopped (their results say so), and the rest finish.
    fn interrupt_for_user_message(&mut self) {
        for i in 0..self.entries.len() {
            match self.entries[i].status {
                Status::Queued => self.synthesize(i, Synth::InterruptedByMessage),
                Status::Executing if self.entries[i].behavior == InterruptBehavior::Cancel => {
                    if let Some(token) = &self.entries[i].token {
                        token.cancel();
                    }
                }
                Status::Executing | Status::Completed | Status::Yielded => {}
            }
        }
    }

    fn answer_queued_after_abort(&mut self) {
        for i in 0..self.entries.len() {
            if self.entries[i].status == Status::Queued {
                self.synthesize(i, Synth::Interrupted);
            }
        }
    }

    fn synthesize(&mut self, idx: usize, kind: Synth) {
        let entry = &self.entries[idx];
        let outcome = match kind {
            Synth::Interrupted => CallOutcome::interrupted(&entry.call, &entry.tool_name),
            Synth::InterruptedByMessage => CallOutcome::interrupted_by_message(&entry.call, &entry.tool_name),
            Synth::SiblingFailed(failed) => {
                CallOutcome::sibling_failed(&entry.call, &entry.tool_name, &failed)
            }
        };
        self.finish_entry(idx, outcome, 0);
    }

    fn finish_entry(&mut self, idx: usize, outcome: CallOutcome, elapsed_ms: u64) {
        self.pipeline.events().emit(Event::ToolCompleted {
            tool_use_id: outcome.tool_use_id.clone(),
            content: outcome.content.clone(),
            is_error: outcome.is_error,
            error: outcome.error_message.clone(),
            denied: outcome.denied,
            cancelled: matches!(outcome.error_class, Some(ErrorClass::Cancelled)),
            display: outcome.display.clone(),
            persisted_path: outcome.persisted_path.clone(),
            persisted_bytes: outcome.persisted_bytes,
            elapsed_ms,
            changed_files: outcome.changed_files.clone(),
        });
        let entry = &mut self.entries[idx];
        entry.status = Status::Completed;
        entry.outcome = Some(outcome);
    }

    fn yield_ready(&mut self) {
        while let Some(entry) = self.entries.get_mut(self.next_yield) {
            if entry.status != Status::Completed {
                break;
            }
            entry.status = Status::Yielded;
            if let Some(outcome) = entry.outcome.take() {
                let _ = self.results_tx.send(outcome);
            }
            self.next_yield += 1;
        }
    }
}

enum Synth {
    Interrupted,
    InterruptedByMessage,
    SiblingFailed(String),
}
