// no_world.rs -- the no_world guard (samples/plugins/no_world.c) in Rust,
// against the same C header: proof that a plugin in a language other than
// C and C++ loads and decides through the ABI alone.
//
// Built without Cargo or crates (the build machines reach no crate
// registry): `rustc --crate-type cdylib`, see samples/CMakeLists.txt.  The
// FFI declarations below mirror sdk/include/toolgate/toolgate.h by hand; a
// larger Rust plugin would generate them with bindgen.  The host API table
// is append-only, so declaring its fields up to the last one used is
// enough: the ones not used are typed as plain pointers.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_void};
use std::ptr;

type tg_status = i32;
const TG_OK: tg_status = 0;
const TOOLGATE_ABI_MAJOR: u16 = 1;
const TOOLGATE_ABI_MINOR: u16 = 1;
const TG_CAP_GUARD: u32 = 0x02;
const TG_GUARD_ABSTAIN: i32 = 0;
const TG_GUARD_DENY: i32 = 1;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct tg_str {
    data: *const c_char,
    size: usize,
}

pub enum tg_call {}
pub enum tg_init_ctx {}

type tg_guard_fn =
    unsafe extern "C" fn(user_data: *mut c_void, call: *const tg_call, verdict: *mut i32) -> tg_status;
type tg_init_fn = unsafe extern "C" fn(
    host: *const tg_host_api,
    ctx: *mut tg_init_ctx,
    config: tg_str,
    out_state: *mut *mut c_void,
) -> tg_status;

#[repr(C)]
pub struct tg_hook_options {
    struct_size: u32,
    name: *const c_char,
    tool_filter: *const c_char,
    priority: i32,
    user_data: *mut c_void,
}

/// The host API table, in header order, up to set_reason.
#[repr(C)]
pub struct tg_host_api {
    struct_size: u32,
    abi_major: u16,
    abi_minor: u16,
    register_pre_execute: *const c_void,
    register_guard:
        unsafe extern "C" fn(*mut tg_init_ctx, *const tg_hook_options, tg_guard_fn) -> tg_status,
    register_execute_wrapper: *const c_void,
    register_post_execute: *const c_void,
    register_result_observer: *const c_void,
    register_tool: *const c_void,
    init_error: *const c_void,
    reject_config: *const c_void,
    call_info: *const c_void,
    arguments_json: *const c_void,
    arg_get: *const c_void,
    arg_string: unsafe extern "C" fn(*const tg_call, *const c_char, *mut tg_str) -> tg_status,
    current_decision: *const c_void,
    call_outcome: *const c_void,
    result_json: *const c_void,
    value_json: *const c_void,
    set_error: *const c_void,
    set_reason: unsafe extern "C" fn(*const tg_call, tg_str) -> tg_status,
}

#[repr(C)]
pub struct tg_plugin_descriptor {
    struct_size: u32,
    abi_major: u16,
    abi_minor: u16,
    id: *const c_char,
    version: *const c_char,
    capabilities: u32,
    flags: u32,
    init: tg_init_fn,
    shutdown: *const c_void,
    export_state: *const c_void,
    import_state: *const c_void,
}

// The descriptor is immutable static data; raw pointers are not Sync by
// default, so say that sharing it is fine.
unsafe impl Sync for tg_plugin_descriptor {}

// Set once in init (the control thread), before any callback can run.
static mut HOST: *const tg_host_api = ptr::null();

const REASON: &str = "greeting the whole World is not allowed (said in Rust)";

unsafe extern "C" fn no_world(
    _user_data: *mut c_void,
    call: *const tg_call,
    verdict: *mut i32,
) -> tg_status {
    // Nothing may unwind across the C boundary: this body cannot panic
    // (no indexing, no allocation), and the crate is built with
    // panic=abort besides.
    let host = &*HOST;
    *verdict = TG_GUARD_ABSTAIN;
    let mut name = tg_str { data: ptr::null(), size: 0 };
    if (host.arg_string)(call, b"/name\0".as_ptr().cast(), &mut name) == TG_OK
        && !name.data.is_null()
        && std::slice::from_raw_parts(name.data.cast::<u8>(), name.size) == b"World"
    {
        (host.set_reason)(call, tg_str { data: REASON.as_ptr().cast(), size: REASON.len() });
        *verdict = TG_GUARD_DENY;
    }
    TG_OK
}

unsafe extern "C" fn init(
    host: *const tg_host_api,
    ctx: *mut tg_init_ctx,
    _config: tg_str,
    _out_state: *mut *mut c_void,
) -> tg_status {
    HOST = host;
    let options = tg_hook_options {
        struct_size: std::mem::size_of::<tg_hook_options>() as u32,
        name: b"no-world\0".as_ptr().cast(),
        tool_filter: b"greet\0".as_ptr().cast(),
        priority: 0,
        user_data: ptr::null_mut(),
    };
    ((*host).register_guard)(ctx, &options, no_world)
}

static DESCRIPTOR: tg_plugin_descriptor = tg_plugin_descriptor {
    struct_size: std::mem::size_of::<tg_plugin_descriptor>() as u32,
    abi_major: TOOLGATE_ABI_MAJOR,
    abi_minor: TOOLGATE_ABI_MINOR,
    id: b"sample.rust-no-world\0".as_ptr() as *const c_char,
    version: b"1.0.0\0".as_ptr() as *const c_char,
    capabilities: TG_CAP_GUARD,
    flags: 0,
    init,
    shutdown: ptr::null(),
    export_state: ptr::null(),
    import_state: ptr::null(),
};

/// The one exported symbol (TOOLGATE_ENTRY_SYMBOL).
#[no_mangle]
pub extern "C" fn toolgate_plugin_entry() -> *const tg_plugin_descriptor {
    &DESCRIPTOR
}
