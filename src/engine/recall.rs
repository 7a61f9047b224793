//! What a run reads of its session when it starts: the session's newest runs, a page at a time
//! ([`Store::session_tail`]), until it holds every line a prompt of the run can show, not the
//! whole session. A prompt shows the newest memory lines whose shortest forms fit its window
//! (`prompt::history`), and the focused requests quote the last [`MAX_EXCHANGES`] questions
//! (`focused_answer.rs`): once the lines read no longer fit the window and hold that many
//! questions, older runs could change neither, and they are not read. The memory is then the
//! newest lines of the one the whole session gives, and every prompt is the same.
//!
//! The lines are rendered for the prompt as they are read, newest first, and handed to the run's
//! first prompt, which does not render them again.

use crate::store::{Store, StoreError};

use super::focused_answer::MAX_EXCHANGES;
use super::prompt::{MemoryLines, NewestFirst, TokenCounter};
use super::Remembered;

/// Runs in the first page read, and the fewest in a later one, which is as many as the window
/// seems to have room for, by the runs read so far.
const FIRST_PAGE: usize = 8;

/// A session's memory as a run of it reads it.
pub(crate) struct Recalled {
    /// The newest lines of the session's memory (the whole memory if it fits), oldest first.
    pub(crate) memory: Vec<Remembered>,
    /// Those a prompt of the budget can show, rendered.
    pub(crate) lines: MemoryLines,
}

/// The session's memory for a run of it (less the run `except`, a resumed run's own): the whole
/// session's, or its newest lines, from a line a prompt of `budget` tokens could never show.
pub(crate) async fn recall(
    store: &dyn Store,
    session: &str,
    except: Option<&str>,
    counter: &dyn TokenCounter,
    budget: usize,
) -> Result<Recalled, StoreError> {
    // Each run's lines (none for `except`), newest run first.
    let mut read: Vec<Vec<Remembered>> = Vec::new();
    let mut fit = NewestFirst::new(budget);
    let mut asked = 0usize;
    let (mut skip, mut limit) = (0, FIRST_PAGE);
    loop {
        let page = store.session_tail(session, skip, limit).await?;
        for saved in page.runs {
            if Some(saved.run.id.as_str()) == except {
                continue;
            }
            let lines = Remembered::of_run(&saved.run, saved.turns.into_iter().map(|t| t.turn).collect());
            for line in lines.iter().rev() {
                fit.push_older(line, counter);
            }
            asked += 1;
            read.push(lines);
        }
        if !page.more {
            // The session's start: the steps of runs whose record is gone are its oldest lines.
            let orphans: Vec<Remembered> =
                page.orphans.into_iter().map(|t| Remembered::Step(t.turn)).collect();
            for line in orphans.iter().rev() {
                fit.push_older(line, counter);
            }
            read.push(orphans);
            break;
        }
        if fit.full() && asked >= MAX_EXCHANGES {
            break;
        }
        skip += limit;
        limit = room_for(budget, fit.least(), asked).max(FIRST_PAGE);
    }
    let memory: Vec<Remembered> = read.into_iter().rev().flatten().collect();
    let lines = fit.finish(memory.len());
    Ok(Recalled { memory, lines })
}

/// How many more runs like the `runs` read so far, whose lines took `least` tokens, a window of
/// `budget` tokens has room for, and one more.
fn room_for(budget: usize, least: usize, runs: usize) -> usize {
    match least {
        0 => 0,
        least => budget.saturating_sub(least).saturating_mul(runs).div_ceil(least) + 1,
    }
}
