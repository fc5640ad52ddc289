//! Raw bindings of the toolgate plugin ABI: `sdk/include/toolgate/toolgate.h`,
//! item for item, in header order.  The header is the manual -- read it for
//! what each entry means, who owns what and which stage may call what; this
//! file only says it in Rust.
//!
//! Written once and checked against the header by a test
//! (`tests/check_rust_bindings.py`, ctest `sdk.rust_bindings_match_header`):
//! every constant's value, every struct's size and every field's offset
//! must equal what a C compiler makes of the header, and every name must be
//! here.  Builds with rustc 1.63 (Debian 12) and later, without Cargo or any
//! crate: `rustc --edition 2018 --crate-type rlib --crate-name toolgate_sys
//! lib.rs`, then `--extern toolgate_sys=libtoolgate_sys.rlib`.
//!
//! Function pointers are `Option<unsafe extern "C" fn ...>`: a NULL entry
//! (an optional callback left out, or a host table entry past the host's
//! `struct_size`) is `None`, never a dangling call.  Use [`host_has`] before
//! touching a host entry newer than the oldest host minor you declared.
#![allow(non_camel_case_types)]

// std::os::raw, not core::ffi: core::ffi::c_char needs rustc 1.64.
pub use std::os::raw::{c_char, c_void};

// ---- 1. Versioning ----------------------------------------------------------
pub const TOOLGATE_ABI_MAJOR: u16 = 1;
pub const TOOLGATE_ABI_MINOR: u16 = 8;

// ---- 2. Basic types ---------------------------------------------------------
pub type tg_status = i32;
pub const TG_OK: tg_status = 0;
pub const TG_ERROR: tg_status = 1;
pub const TG_INVALID_ARGUMENT: tg_status = 2;
pub const TG_NOT_FOUND: tg_status = 3;
pub const TG_TYPE_MISMATCH: tg_status = 4;
pub const TG_CONFIG_REJECTED: tg_status = 5;
pub const TG_CANCELLED: tg_status = 6;
pub const TG_TIMEOUT: tg_status = 7;
pub const TG_WRONG_STAGE: tg_status = 8;
pub const TG_DENIED: tg_status = 9;

/// UTF-8 text with an explicit length; `data` need not be NUL-terminated.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tg_str {
    pub data: *const c_char,
    pub size: usize,
}

/// What `visit_strings` (ABI 1.8) calls for each string: 0 to go on,
/// anything else to stop.
pub type tg_string_visitor_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, text: tg_str) -> i32>;
pub const TG_STRINGS_ARGUMENTS: i32 = 1;
pub const TG_STRINGS_RESULT: i32 = 2;

impl tg_str {
    /// Borrows `s` for a host call (the host copies what it keeps).
    pub fn from_str(s: &str) -> tg_str {
        tg_str { data: s.as_ptr() as *const c_char, size: s.len() }
    }
    /// The bytes, or an empty slice for `{NULL, 0}`.
    ///
    /// # Safety
    /// `data` must point at `size` readable bytes for the returned lifetime
    /// (a borrowed string: until the callback returns).
    pub unsafe fn as_bytes<'a>(&self) -> &'a [u8] {
        if self.data.is_null() {
            &[]
        } else {
            core::slice::from_raw_parts(self.data as *const u8, self.size)
        }
    }
}

/// Opaque handles: only the host creates them.
#[repr(C)]
pub struct tg_call {
    _private: [u8; 0],
}
#[repr(C)]
pub struct tg_signal {
    _private: [u8; 0],
}
#[repr(C)]
pub struct tg_next {
    _private: [u8; 0],
}
#[repr(C)]
pub struct tg_result {
    _private: [u8; 0],
}
#[repr(C)]
pub struct tg_init_ctx {
    _private: [u8; 0],
}

// ---- 3. The entry point -----------------------------------------------------
/// The one symbol a plugin exports: `#[no_mangle] pub extern "C" fn
/// toolgate_plugin_entry() -> *const tg_plugin_descriptor`.
pub const TOOLGATE_ENTRY_SYMBOL: &str = "toolgate_plugin_entry";
pub type tg_entry_fn = Option<unsafe extern "C" fn() -> *const tg_plugin_descriptor>;

// ---- 4. The descriptor ------------------------------------------------------
pub const TG_CAP_PRE_EXECUTE: u32 = 0x01;
pub const TG_CAP_GUARD: u32 = 0x02;
pub const TG_CAP_EXECUTE_WRAPPER: u32 = 0x04;
pub const TG_CAP_POST_EXECUTE: u32 = 0x08;
pub const TG_CAP_RESULT_OBSERVER: u32 = 0x10;
pub const TG_CAP_TOOLS: u32 = 0x20;
pub const TG_CAP_FS_GUARD: u32 = 0x40;

pub const TG_PLUGIN_SERIALIZED: u32 = 0x01;
pub const TG_PLUGIN_NEVER_UNLOAD: u32 = 0x02;

pub type tg_init_fn = Option<
    unsafe extern "C" fn(
        host: *const tg_host_api,
        ctx: *mut tg_init_ctx,
        config_json: tg_str,
        out_state: *mut *mut c_void,
    ) -> tg_status,
>;
pub type tg_shutdown_fn = Option<unsafe extern "C" fn(state: *mut c_void)>;
pub type tg_export_state_fn =
    Option<unsafe extern "C" fn(state: *mut c_void, out_json: *mut tg_str) -> tg_status>;
pub type tg_import_state_fn =
    Option<unsafe extern "C" fn(state: *mut c_void, state_json: tg_str) -> tg_status>;

#[repr(C)]
pub struct tg_plugin_descriptor {
    pub struct_size: u32,
    pub abi_major: u16,
    pub abi_minor: u16,
    pub id: *const c_char,
    pub version: *const c_char,
    pub capabilities: u32,
    pub flags: u32,
    pub init: tg_init_fn,
    pub shutdown: tg_shutdown_fn,
    // since ABI 1.1
    pub export_state: tg_export_state_fn,
    pub import_state: tg_import_state_fn,
    // since ABI 1.2: JSON Schema text of the config, NUL-terminated; null = none
    pub config_schema: *const c_char,
}

// A descriptor is immutable static data; its raw pointers point at
// 'static strings.  Sharing it between threads is fine.
unsafe impl Sync for tg_plugin_descriptor {}

// ---- 5. The callback kinds --------------------------------------------------
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tg_call_info {
    pub struct_size: u32,
    pub tool_name: tg_str,
    pub call_id: tg_str,
    pub session_id: tg_str,
    pub parent_token: tg_str,
    pub stage: tg_str,
    pub annotations: u32,
    pub attempt: u32,
    // since ABI 1.3: who asks (empty when unknown / the main agent)
    pub client: tg_str,
    pub agent_id: tg_str,
    // since ABI 1.5: the Code Mode caller chain
    pub parent_call_id: tg_str,
    pub depth: u32,
}

pub const TG_PRE_KEEP: i32 = 0;
pub const TG_PRE_ALLOW: i32 = 1;
pub const TG_PRE_ASK: i32 = 2;
pub const TG_PRE_DENY: i32 = 3;
pub type tg_pre_execute_fn = Option<
    unsafe extern "C" fn(user_data: *mut c_void, call: *mut tg_call, out_verdict: *mut i32) -> tg_status,
>;

pub const TG_GUARD_ABSTAIN: i32 = 0;
pub const TG_GUARD_DENY: i32 = 1;
pub type tg_guard_fn = Option<
    unsafe extern "C" fn(user_data: *mut c_void, call: *const tg_call, out_verdict: *mut i32) -> tg_status,
>;

// ---- 5.2a fs guards (since ABI 1.5) ----
pub const TG_FS_WRITE: i32 = 1;
pub const TG_FS_EDIT: i32 = 2;
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tg_fs_intent {
    pub struct_size: u32,
    pub kind: i32,
    pub path: tg_str,
    pub requested: tg_str,
    pub exists: u32,
    pub via_link: u32,
    pub content_hash: tg_str,
}
pub type tg_fs_guard_fn = Option<
    unsafe extern "C" fn(*mut c_void, *const tg_call, *const tg_fs_intent, *mut i32) -> tg_status,
>;

// ---- 5.2b static verdicts (since ABI 1.6) ----
pub const TG_TOOL_MAY_PASS: i32 = 0;
pub const TG_TOOL_DENIED_ALWAYS: i32 = 1;
pub type tg_tool_verdict_fn = Option<
    unsafe extern "C" fn(user_data: *mut c_void, who: *const tg_call_info, out_verdict: *mut i32) -> tg_status,
>;

pub type tg_execute_wrapper_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        call: *const tg_call,
        signal: *const tg_signal,
        next: *const tg_next,
        out_result: *mut *const tg_result,
    ) -> tg_status,
>;

// ---- 5.3b execute wrappers in two halves (since ABI 1.7) ----
pub type tg_wrapper_before_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        call: *const tg_call,
        signal: *const tg_signal,
        out_signal: *mut *const tg_signal,
        out_state: *mut *mut c_void,
    ) -> tg_status,
>;
pub type tg_wrapper_after_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        call: *const tg_call,
        result: *const tg_result,
        state: *mut c_void,
    ) -> tg_status,
>;

pub const TG_POST_ACCEPT: i32 = 0;
pub const TG_POST_REPLACE: i32 = 1;
pub const TG_POST_BLOCK: i32 = 2;
pub type tg_post_execute_fn = Option<
    unsafe extern "C" fn(user_data: *mut c_void, call: *mut tg_call, out_verdict: *mut i32) -> tg_status,
>;

pub type tg_result_observer_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, call: *const tg_call) -> tg_status>;

pub const TG_TOOL_READ_ONLY: u32 = 0x01;
pub const TG_TOOL_DESTRUCTIVE: u32 = 0x02;
pub const TG_TOOL_IDEMPOTENT: u32 = 0x04;
pub const TG_TOOL_OPEN_WORLD: u32 = 0x08;

pub type tg_tool_execute_fn = Option<
    unsafe extern "C" fn(user_data: *mut c_void, call: *mut tg_call, signal: *const tg_signal) -> tg_status,
>;
pub type tg_tool_render_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, call: *mut tg_call) -> tg_status>;
pub type tg_tool_finalize_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, call: *mut tg_call) -> tg_status>;
pub type tg_tool_present_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, call: *mut tg_call) -> tg_status>;

#[repr(C)]
pub struct tg_tool_definition {
    pub struct_size: u32,
    pub name: *const c_char,
    pub description: *const c_char,
    pub input_schema_json: tg_str,
    pub output_schema_json: tg_str,
    pub annotations: u32,
    pub execute: tg_tool_execute_fn,
    pub render: tg_tool_render_fn,
    pub finalize_content: tg_tool_finalize_fn,
    pub user_data: *mut c_void,
    // since ABI 1.4: UI cards
    pub present_call: tg_tool_present_fn,
    pub present_result: tg_tool_present_fn,
}

#[repr(C)]
pub struct tg_hook_options {
    pub struct_size: u32,
    pub name: *const c_char,
    pub tool_filter: *const c_char,
    pub priority: i32,
    pub user_data: *mut c_void,
}

pub const TG_OUTCOME_EXECUTED: i32 = 0;
pub const TG_OUTCOME_DENIED: i32 = 1;

pub const TG_LOG_DEBUG: i32 = 0;
pub const TG_LOG_INFO: i32 = 1;
pub const TG_LOG_WARN: i32 = 2;
pub const TG_LOG_ERROR: i32 = 3;

pub const TG_JSON_NULL: i32 = 0;
pub const TG_JSON_BOOL: i32 = 1;
pub const TG_JSON_INT: i32 = 2;
pub const TG_JSON_DOUBLE: i32 = 3;
pub const TG_JSON_STRING: i32 = 4;
pub const TG_JSON_ARRAY: i32 = 5;
pub const TG_JSON_OBJECT: i32 = 6;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tg_json_value {
    pub struct_size: u32,
    pub r#type: i32,
    pub boolean: i32,
    pub integer: i64,
    pub number: f64,
    pub string: tg_str,
    pub size: usize,
}

// ---- 6. The host API table --------------------------------------------------
/// Append-only; valid from init until shutdown returns.
#[repr(C)]
pub struct tg_host_api {
    pub struct_size: u32,
    pub abi_major: u16,
    pub abi_minor: u16,

    // registration (init only)
    pub register_pre_execute: Option<
        unsafe extern "C" fn(*mut tg_init_ctx, *const tg_hook_options, tg_pre_execute_fn) -> tg_status,
    >,
    pub register_guard:
        Option<unsafe extern "C" fn(*mut tg_init_ctx, *const tg_hook_options, tg_guard_fn) -> tg_status>,
    pub register_execute_wrapper: Option<
        unsafe extern "C" fn(*mut tg_init_ctx, *const tg_hook_options, tg_execute_wrapper_fn) -> tg_status,
    >,
    pub register_post_execute: Option<
        unsafe extern "C" fn(*mut tg_init_ctx, *const tg_hook_options, tg_post_execute_fn) -> tg_status,
    >,
    pub register_result_observer: Option<
        unsafe extern "C" fn(*mut tg_init_ctx, *const tg_hook_options, tg_result_observer_fn) -> tg_status,
    >,
    pub register_tool:
        Option<unsafe extern "C" fn(*mut tg_init_ctx, *const tg_tool_definition) -> tg_status>,

    // init failures
    pub init_error: Option<unsafe extern "C" fn(*mut tg_init_ctx, *const c_char)>,
    pub reject_config: Option<unsafe extern "C" fn(*mut tg_init_ctx, *const c_char, *const c_char)>,

    // reading a call
    pub call_info: Option<unsafe extern "C" fn(*const tg_call, *mut tg_call_info) -> tg_status>,
    pub arguments_json: Option<unsafe extern "C" fn(*const tg_call, *mut tg_str) -> tg_status>,
    pub arg_get:
        Option<unsafe extern "C" fn(*const tg_call, *const c_char, *mut tg_json_value) -> tg_status>,
    pub arg_string: Option<unsafe extern "C" fn(*const tg_call, *const c_char, *mut tg_str) -> tg_status>,
    pub current_decision: Option<unsafe extern "C" fn(*const tg_call) -> i32>,
    pub call_outcome: Option<unsafe extern "C" fn(*const tg_call) -> i32>,
    pub result_json: Option<unsafe extern "C" fn(*const tg_call, *mut tg_str) -> tg_status>,
    pub value_json: Option<unsafe extern "C" fn(*const tg_call, *mut tg_str) -> tg_status>,

    // answering
    pub set_error: Option<unsafe extern "C" fn(*const tg_call, *const c_char)>,
    pub set_reason: Option<unsafe extern "C" fn(*const tg_call, tg_str) -> tg_status>,
    pub set_arguments: Option<unsafe extern "C" fn(*mut tg_call, tg_str) -> tg_status>,
    pub set_result: Option<unsafe extern "C" fn(*mut tg_call, tg_str) -> tg_status>,
    pub add_context: Option<unsafe extern "C" fn(*mut tg_call, tg_str) -> tg_status>,
    pub set_value: Option<unsafe extern "C" fn(*mut tg_call, tg_str) -> tg_status>,
    pub set_content: Option<unsafe extern "C" fn(*mut tg_call, tg_str) -> tg_status>,

    // execute wrappers
    pub call_next: Option<
        unsafe extern "C" fn(*const tg_next, *const tg_signal, *mut *const tg_result) -> tg_status,
    >,
    pub result_is_error: Option<unsafe extern "C" fn(*const tg_result) -> i32>,
    pub result_error_code: Option<unsafe extern "C" fn(*const tg_result) -> tg_str>,

    // signals
    pub signal_child: Option<unsafe extern "C" fn(*const tg_signal, u64) -> *const tg_signal>,
    pub signal_fired: Option<unsafe extern "C" fn(*const tg_signal) -> i32>,
    pub signal_wait: Option<unsafe extern "C" fn(*const tg_signal, u64) -> i32>,

    // events and logs
    pub emit_event: Option<unsafe extern "C" fn(*const tg_call, *const c_char, tg_str) -> tg_status>,
    pub log: Option<unsafe extern "C" fn(*const tg_call, i32, tg_str)>,

    // since ABI 1.2: reading the config (init only)
    pub config_get:
        Option<unsafe extern "C" fn(*mut tg_init_ctx, *const c_char, *mut tg_json_value) -> tg_status>,
    pub config_string:
        Option<unsafe extern "C" fn(*mut tg_init_ctx, *const c_char, *mut tg_str) -> tg_status>,

    // since ABI 1.5: file mutations
    pub register_fs_guard:
        Option<unsafe extern "C" fn(*mut tg_init_ctx, *const tg_hook_options, tg_fs_guard_fn) -> tg_status>,
    pub fs_intent:
        Option<unsafe extern "C" fn(*mut tg_call, i32, tg_str, *mut tg_str, *mut tg_str) -> tg_status>,
    pub fs_observed: Option<unsafe extern "C" fn(*mut tg_call, tg_str, tg_str) -> tg_status>,

    // since ABI 1.6: static verdicts (init only)
    pub set_tool_verdict:
        Option<unsafe extern "C" fn(*mut tg_init_ctx, *const c_char, tg_tool_verdict_fn) -> tg_status>,
    pub client_context_get:
        Option<unsafe extern "C" fn(*const tg_call, *const c_char, *mut tg_json_value) -> tg_status>,
    // since ABI 1.7: execute wrappers in two halves (init only)
    pub register_execute_wrapper_halves: Option<
        unsafe extern "C" fn(
            *mut tg_init_ctx,
            *const tg_hook_options,
            tg_wrapper_before_fn,
            tg_wrapper_after_fn,
        ) -> tg_status,
    >,
    // since ABI 1.8: every string of the arguments or the result, without JSON text
    pub visit_strings: Option<
        unsafe extern "C" fn(*const tg_call, i32, tg_string_visitor_fn, *mut c_void) -> tg_status,
    >,
}

/// `TOOLGATE_HOST_HAS(api, member)`: whether the host's table has the
/// entry `member` (its `struct_size` reaches past it).  Check before using
/// an entry newer than the oldest host minor your descriptor declares:
/// `if host_has!(host, log) { ... }`.  `host` is the `*const tg_host_api`
/// init received; the entry itself is not read.
#[macro_export]
macro_rules! host_has {
    ($api:expr, $member:ident) => {{
        let api: *const $crate::tg_host_api = $api;
        // addr_of! computes the address without reading or referencing
        // the entry, which may lie past the end of an older host's table.
        let offset = unsafe { ::core::ptr::addr_of!((*api).$member) } as usize - api as usize;
        let size = unsafe { (*api).struct_size } as usize;
        size >= offset + ::core::mem::size_of::<usize>()
    }};
}
