//! The process allocator's setup (on Linux): mimalloc, installed in
//! `main.rs`, commits its arenas' memory as it is used rather than all at
//! once.
//!
//! mimalloc reserves its first arena (1 GiB of address space) at the
//! process's first allocation, before `main`. On Linux it commits an arena
//! eagerly by default, and pages it frees inside an eagerly committed arena
//! stay resident: every request's transient buffers then leave their pages
//! behind, and an idle stream subscriber measured 24.6 KiB of resident
//! memory against 14.8 KiB with lazy commit (BENCHMARKS.md, "Streams"), at
//! no cost to quote latency.
//!
//! An option set in `main` comes too late for that first arena, so the
//! default is set from a constructor that the loader runs before every
//! unprioritized one (mimalloc's own, which reads the `MIMALLOC_*`
//! environment, among them): `MIMALLOC_ARENA_EAGER_COMMIT=1` still
//! overrides it.

/// `mi_option_arena_eager_commit` in mimalloc 3's `mi_option_t` (the
/// `libmimalloc-sys` the lock file pins builds mimalloc 3); the test
/// `allocator_commits_lazily` in `tests/cli.rs` reads it back by name.
const ARENA_EAGER_COMMIT: i32 = 4;

#[allow(unsafe_code)]
mod early {
    unsafe extern "C" {
        /// Sets an option's value unless it was already initialized (read
        /// from the environment or set). Touches only mimalloc's static
        /// option table: safe before mimalloc itself is initialized.
        fn mi_option_set_default(option: i32, value: std::ffi::c_long);
    }

    extern "C" fn lazy_commit() {
        // SAFETY: a plain store into mimalloc's static option table, with
        // a valid option index; no allocation, no other state read.
        unsafe { mi_option_set_default(super::ARENA_EAGER_COMMIT, 0) };
    }

    /// Run by the loader, before `main` and before any constructor without
    /// a priority.
    #[used]
    // SAFETY: `.init_array.*` entries are `extern "C" fn()` pointers the
    // loader calls once, single-threaded, at start; `lazy_commit` is one.
    #[unsafe(link_section = ".init_array.00100")]
    static LAZY_COMMIT: extern "C" fn() = lazy_commit;
}
