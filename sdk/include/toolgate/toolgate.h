/*
 * toolgate.h -- the toolgate plugin ABI.  The whole contract between the
 * toolgate host and a plugin is in this one C99 header.  Read it top to
 * bottom: it is the plugin author's manual.
 *
 *   1. Versioning             -- TOOLGATE_ABI_MAJOR / MINOR and what they mean
 *   2. Basic types            -- status codes, strings, opaque handles
 *   3. The entry point        -- the one symbol a plugin exports
 *   4. The descriptor         -- what the plugin tells the host about itself
 *   5. The callback kinds     -- pre-execute, guard, execute wrapper,
 *                                post-execute, result observer, tools
 *   6. The host API table     -- everything a plugin may ask of the host
 *
 * Conventions used everywhere below
 * ---------------------------------
 * Ownership is written into the names and docs:
 *   - "borrowed": memory the host hands to a callback lives until that
 *     callback returns.  Copy it if you need it longer.
 *   - "copied": whatever a plugin hands to a host function is copied by the
 *     host before the function returns.  The plugin keeps ownership.
 *   - Nothing crosses this boundary that must be freed by the other side.
 *
 * Structs that cross the boundary start with `struct_size` (set it with
 * sizeof).  A reader uses only the fields that fit in that size and rejects a
 * struct larger than any version it knows.  Tables are append-only: a new
 * function goes at the end; a changed signature becomes a new `_v2` entry.
 *
 * Errors: every callback returns a tg_status.  TG_OK means "my answer is in
 * the out-parameters"; anything else is a failure, and a failure is never
 * read as permission: in a guard it denies, in every other stage it ends the
 * call as an error (code "plugin_error").  Attach a human-readable message
 * with host->set_error() before returning the failure.
 *
 * Threading: unless a plugin sets TG_PLUGIN_SERIALIZED, its callbacks may run
 * concurrently on many threads.  init and shutdown run on one control thread
 * and never concurrently with any other callback of the same plugin.  A
 * serialized plugin's callbacks wait for each other -- an execute wrapper
 * holds the lock while the tool runs -- and a guard's deadline (the host's,
 * 5 s by default) counts that wait: do not serialize a plugin whose guard
 * must answer while its own wrapper runs slow tools.
 *
 * JSON crosses as UTF-8 text with an explicit length (tg_str), never as a
 * NUL-terminated string, and is validated by the host on arrival.
 */
#ifndef TOOLGATE_TOOLGATE_H
#define TOOLGATE_TOOLGATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * 1. Versioning
 * ======================================================================
 * MAJOR changes when a contract changes (not only a signature).  MINOR grows
 * when fields or table entries are appended; nothing is ever removed or
 * moved within a major.
 *
 * Negotiation goes both ways, by version and by struct size:
 *   - the plugin's descriptor says, in abi_minor, the oldest host minor it
 *     needs.  Normally that is TOOLGATE_ABI_MINOR (everything in the header
 *     it was built with).  A plugin that wants to run on older hosts sets it
 *     lower, and uses a host API member newer than that minor only after
 *     TOOLGATE_HOST_HAS(api, member) says the host has it;
 *   - the host loads a plugin when the majors are equal and the plugin's
 *     abi_minor is not newer than its own.  Anything else is a load error
 *     naming both versions.  A plugin built against an older header is
 *     loaded as it is; one built against a newer header may have a longer
 *     descriptor, whose fields this host does not know and does not read
 *     (anything that must not be ignored comes with a TG_CAP_* or
 *     TG_PLUGIN_* bit, and unknown bits are refused);
 *   - the host's API table carries its own version and struct_size: the
 *     plugin sees what the host has (TOOLGATE_HOST_HAS).
 */
#define TOOLGATE_ABI_MAJOR 1
#define TOOLGATE_ABI_MINOR 8
/* What each minor appended:
 *   1.1  the descriptor's export_state / import_state (hot-reload handoff)
 *   1.2  reading the config without parsing JSON: the host API's config_get
 *        and config_string, and the descriptor's config_schema, which the
 *        host checks the manifest's config against before init runs
 *   1.3  who asks: tg_call_info's client and agent_id (the program whose
 *        call it is, and the subagent making it)
 *   1.4  UI cards: tg_tool_definition's present_call and present_result
 *   1.5  Code Mode's caller chain: tg_call_info's parent_call_id and depth;
 *        file mutations: TG_CAP_FS_GUARD, register_fs_guard, fs_intent,
 *        fs_observed and the TG_DENIED status
 *   1.6  static verdicts: set_tool_verdict, so a tool a policy denies
 *        whatever its arguments is not offered (5.2b); the client's
 *        context (its roots): client_context_get
 *   1.7  execute wrappers in two halves (5.3b): register_execute_wrapper_halves,
 *        so a deadline or a measurement holds no thread while a tool that
 *        answers later works
 *   1.8  reading every string of the arguments or the result without JSON
 *        text: visit_strings (a secret scanner that finds nothing parses
 *        nothing) */

/* ======================================================================
 * 2. Basic types
 * ====================================================================== */

/* Status codes.  A plain integer so its size never depends on the compiler.
 * Any value not listed here is treated as TG_ERROR (fail closed). */
typedef int32_t tg_status;
#define TG_OK 0               /* success; the answer is in the out-params   */
#define TG_ERROR 1            /* generic failure; see set_error's message   */
#define TG_INVALID_ARGUMENT 2 /* a host function was called with bad input  */
#define TG_NOT_FOUND 3        /* JSON Pointer or key does not exist         */
#define TG_TYPE_MISMATCH 4    /* value exists but has a different type      */
#define TG_CONFIG_REJECTED 5  /* init: the plugin's config is not valid     */
#define TG_CANCELLED 6        /* a tool noticed its signal was cancelled    */
#define TG_TIMEOUT 7          /* a tool noticed its signal's deadline       */
#define TG_WRONG_STAGE 8      /* host function not allowed in this stage    */
#define TG_DENIED 9           /* fs_intent: the host refused the mutation   */

/* A UTF-8 string with explicit length.  `data` need not be NUL-terminated.
 * {NULL, 0} is the empty string. */
typedef struct tg_str {
  const char *data;
  size_t size;
} tg_str;

/* What host->visit_strings (ABI 1.8) calls for each string: 0 to go on,
 * anything else to stop. */
typedef int32_t (*tg_string_visitor_fn)(void *user_data, tg_str text);
#define TG_STRINGS_ARGUMENTS 1
#define TG_STRINGS_RESULT 2

/* Opaque handles.  Only the host creates them; they are valid for the
 * duration of the callback that received them unless stated otherwise. */
typedef struct tg_call tg_call;         /* one tool call in one stage       */
typedef struct tg_signal tg_signal;     /* cancellation + deadline          */
typedef struct tg_next tg_next;         /* the rest of the wrapper chain    */
typedef struct tg_result tg_result;     /* an execution result (wrappers)   */
typedef struct tg_init_ctx tg_init_ctx; /* registration context during init */

typedef struct tg_host_api tg_host_api;

/* ======================================================================
 * 3. The entry point
 * ======================================================================
 * A plugin exports exactly one symbol, TOOLGATE_ENTRY_SYMBOL, of type
 * tg_entry_fn.  It returns a pointer to a descriptor with static storage
 * duration (never NULL).  It must not do any work: no allocation, no
 * threads, no I/O.  Everything else travels in tables passed both ways.
 *
 * Build plugins with the SDK's CMake helper (toolgate_add_plugin): hidden
 * visibility, -fno-gnu-unique, -Wl,-z,defs and a version script that
 * exports this symbol alone, so that unloading really unloads.
 */
#define TOOLGATE_ENTRY_SYMBOL "toolgate_plugin_entry"

struct tg_plugin_descriptor;
typedef const struct tg_plugin_descriptor *(*tg_entry_fn)(void);

#if defined(_WIN32)
#define TOOLGATE_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define TOOLGATE_EXPORT __attribute__((visibility("default")))
#else
#define TOOLGATE_EXPORT
#endif

#ifdef __cplusplus
#define TOOLGATE_EXTERN_C extern "C"
#else
#define TOOLGATE_EXTERN_C
#endif

/* Use as:  TOOLGATE_PLUGIN_ENTRY { return &my_descriptor; } */
#define TOOLGATE_PLUGIN_ENTRY \
  TOOLGATE_EXTERN_C TOOLGATE_EXPORT const struct tg_plugin_descriptor *toolgate_plugin_entry(void)

/* ======================================================================
 * 4. The descriptor
 * ====================================================================== */

/* Capabilities: the kinds of things the plugin will register in init.  The
 * host checks them: registering a kind not declared here fails the
 * registration, and declaring a kind but registering none of it fails init
 * ("declared a guard but registered none").  */
#define TG_CAP_PRE_EXECUTE 0x01u
#define TG_CAP_GUARD 0x02u
#define TG_CAP_EXECUTE_WRAPPER 0x04u
#define TG_CAP_POST_EXECUTE 0x08u
#define TG_CAP_RESULT_OBSERVER 0x10u
#define TG_CAP_TOOLS 0x20u
#define TG_CAP_FS_GUARD 0x40u /* since ABI 1.5: fs guards (5.2a)           */

/* Flags. */
#define TG_PLUGIN_SERIALIZED 0x01u   /* host never runs two callbacks at once */
#define TG_PLUGIN_NEVER_UNLOAD 0x02u /* image stays mapped (Go, some runtimes) */

/* init: called once, on the control thread, after the ABI check and --
 * when the descriptor declares a config_schema -- after the config was
 * checked against it.
 *   host        the host API table; valid until shutdown returns.  Keep it.
 *   ctx         registration context, valid only during init.
 *   config_json the plugin's `config` object from the manifest (borrowed;
 *               "{}" when absent).  There is no need to parse it: since
 *               ABI 1.2 host->config_get(ctx, "/key", &v) and
 *               host->config_string(ctx, "/key", &s) read one value by JSON
 *               Pointer, like arg_get reads an argument.  Validate what a
 *               schema cannot say; on a problem call
 *               host->reject_config(ctx, "/json/pointer", "message") and
 *               return TG_CONFIG_REJECTED.
 *   out_state   set to the plugin's own state; passed back to shutdown.
 * Return TG_OK, or a failure after host->init_error(ctx, "message").
 *
 * shutdown: called once, after the last callback of this plugin has
 *   returned, on a host thread that is never a call's: the control thread,
 *   or -- for an instance replaced by a hot reload -- the reaper thread,
 *   which may run while the control thread loads other plugins.  Touch only
 *   your own state.  May be NULL. */
typedef tg_status (*tg_init_fn)(const tg_host_api *host, tg_init_ctx *ctx, tg_str config_json,
                                void **out_state);
typedef void (*tg_shutdown_fn)(void *state);

/* State handoff across a hot reload (since ABI 1.1; both optional).
 * export_state: called on the control thread on the *old* instance while
 *   it may still be serving calls: make it thread-safe with your callbacks
 *   (a TG_PLUGIN_SERIALIZED plugin gets its lock held, as for callbacks).  Point *out_json at a
 * JSON document the plugin owns; it must stay valid until the plugin's next callback -- the host
 * copies it at once. import_state: called on the *new* instance after its init, before it serves
 * any call, with what the old one exported.  A failure rejects the reload: the old generation keeps
 * serving. */
typedef tg_status (*tg_export_state_fn)(void *state, tg_str *out_json);
typedef tg_status (*tg_import_state_fn)(void *state, tg_str state_json);

typedef struct tg_plugin_descriptor {
  uint32_t struct_size;    /* sizeof(tg_plugin_descriptor)                   */
  uint16_t abi_major;      /* TOOLGATE_ABI_MAJOR the plugin was built with    */
  uint16_t abi_minor;      /* the oldest host minor it needs (section 1)     */
  const char *id;          /* stable id, e.g. "acme.fs"; [a-z0-9._-]+         */
  const char *version;     /* the plugin's own version, e.g. "1.2.0"          */
  uint32_t capabilities;   /* TG_CAP_* bits                                   */
  uint32_t flags;          /* TG_PLUGIN_* bits                                */
  tg_init_fn init;         /* required                                        */
  tg_shutdown_fn shutdown; /* optional                                      */
  /* ---- since ABI 1.1 ---- */
  tg_export_state_fn export_state; /* optional                              */
  tg_import_state_fn import_state; /* optional                              */
  /* ---- since ABI 1.2 ---- */
  const char *config_schema; /* optional; JSON Schema text, see below      */
} tg_plugin_descriptor;

/* config_schema (since ABI 1.2): NULL, or NUL-terminated JSON text of a
 * JSON Schema (2020-12) that the manifest's `config` object must match.
 * The host checks it before init runs; a config that does not match fails
 * the load with an error naming the manifest, the plugin, the JSON Pointer
 * of the bad value and what was expected ("config/paths/0: must be a
 * string, got 3"), and init is never called.  So init can read what the
 * schema promises without checking shapes again.
 *
 * The host understands a subset of JSON Schema, listed in the SDK's
 * README ("Reading your config"): type ("integer" = any integral number),
 * properties, required, additionalProperties, items, enum, const, minimum,
 * maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength (in
 * code points), minItems, maxItems, uniqueItems, pattern (RE2, matched
 * anywhere in the string unless anchored with ^...$), anyOf, oneOf, allOf,
 * the boolean schemas true and false, and the annotations title,
 * description, default, examples, $schema, $id and $comment (ignored).
 * Any other keyword, and a schema that is not valid JSON or not a valid
 * schema, fails the load naming the keyword: a check the host silently
 * skipped would let a bad config through to a plugin that trusts it.
 *
 * An older host (1.1) does not know this field and never reads it.  A
 * plugin that sets abi_minor below 2 to run on such hosts must check its
 * config itself there; TOOLGATE_HOST_HAS(host, config_get) in init is true
 * exactly when the host checked the schema. */

/* ======================================================================
 * 5. The callback kinds
 * ======================================================================
 * Every hook callback receives `user_data` (the pointer given at
 * registration) and a tg_call handle.  Read the call through the host API:
 * host->call_info() for hot metadata (no JSON parsing needed), host->arg_*()
 * for single arguments by JSON Pointer, host->arguments_json() for all.
 *
 * A `const tg_call *` is a read-only view: host functions that change
 * anything take a non-const `tg_call *`, so a guard or an observer cannot
 * even express a change.  The host checks the stage again at run time.
 */

/* Hot metadata of a call, filled by host->call_info().  All strings are
 * borrowed for the duration of the callback.
 *
 * Set struct_size = sizeof(tg_call_info).  The host fills the fields that
 * fit in struct_size and leaves the rest alone: a plugin built against an
 * older header passes its shorter struct and gets what it knows.  Fields
 * appended in a later minor are filled only by a host of that minor; on an
 * older host they keep what the plugin put there, so zero the struct first
 * (tg_call_info info = {0}) and an unknown field reads as empty.  A
 * struct_size smaller than the 1.0 struct is refused (TG_INVALID_ARGUMENT).
 *
 * Who asks (since ABI 1.3): client and agent_id are set by the entry point
 * that received the call, from what the caller's transport says -- never by
 * a hook, which cannot change them.
 *   client    the program whose call this is: "claude-code", "codex",
 *             "gemini-cli", "cursor", "mcp" (the MCP gateway); empty for
 *             an embedder's own calls, or when the entry point cannot tell.
 *   agent_id  the subagent making the call; empty for the main agent, or
 *             when unknown.  Non-empty means "a subagent asks": a guard can
 *             refuse subagent calls (or only some clients' subagents) on
 *             that, without parsing anything.
 *
 * The caller chain (since ABI 1.5): a call made by a Code Mode script has
 * a non-empty parent_token (the host's, per run), parent_call_id (the
 * run_code call) and depth 1; every other call has them empty and 0.  The
 * host sets them and refuses a caller that tries to, so a guard can refuse,
 * say, destructive tools from code: depth > 0 means "a script asks". */
typedef struct tg_call_info {
  uint32_t struct_size;
  tg_str tool_name;     /* the tool being called                         */
  tg_str call_id;       /* unique per call                               */
  tg_str session_id;    /* the agent session                             */
  tg_str parent_token;  /* non-empty for sub-calls (Code Mode)           */
  tg_str stage;         /* "tools/pre-execute", "guard", ...             */
  uint32_t annotations; /* TG_TOOL_* bits of the tool's definition     */
  uint32_t attempt;     /* body runs so far: 0 in a wrapper before its
                         * first call_next, 1 in the body's first run   */
  /* ---- since ABI 1.3 ---- */
  tg_str client;   /* the calling program; empty when unknown           */
  tg_str agent_id; /* the subagent; empty for the main agent or unknown */
  /* ---- since ABI 1.5 ---- */
  tg_str parent_call_id; /* the run_code call a sub-call came from      */
  uint32_t depth;        /* 1 for a script's calls, 0 for any other     */
} tg_call_info;

/* ---- 5.1 pre-execute (a waterfall, deployer policy) -------------------
 * Runs in order.  State: the current arguments and the current decision,
 * which starts at ALLOW.  Answer one of the verdicts below in *out_verdict.
 * ASK and DENY carry a reason (host->set_reason).  Any verdict may carry
 * replacement arguments (host->set_arguments) -- a JSON object; the rewrite
 * is recorded with this hook's name.  DENY is terminal.  The identity (tool,
 * ids) can never be changed.  Use host->current_decision() to see what
 * earlier hooks decided (an auto-approver answers ALLOW to an earlier ASK).
 * Thread-safe unless the plugin is serialized. */
#define TG_PRE_KEEP 0  /* no opinion: the decision stays as it is */
#define TG_PRE_ALLOW 1 /* the decision becomes allow              */
#define TG_PRE_ASK 2   /* the decision becomes ask(reason)        */
#define TG_PRE_DENY 3  /* deny(reason); later hooks do not run    */
typedef tg_status (*tg_pre_execute_fn)(void *user_data, tg_call *call, int32_t *out_verdict);

/* ---- 5.2 guards (monotonic, security team) ------------------------------
 * Sees the final arguments, after rewrites and approval, read-only.  Answer
 * ABSTAIN or DENY (with host->set_reason).  There is no ALLOW: adding a
 * guard can only make the system stricter.  Every guard whose tool filter
 * matches runs; any DENY denies.  A failure status or an unknown verdict
 * value ends the call as an error; it never lets the call through. */
#define TG_GUARD_ABSTAIN 0
#define TG_GUARD_DENY 1
typedef tg_status (*tg_guard_fn)(void *user_data, const tg_call *call, int32_t *out_verdict);

/* ---- 5.2a fs guards (since ABI 1.5; monotonic, like guards) --------------
 * Run while a tool body runs, when the body declares that it is about to
 * write or edit a file (host->fs_intent): on the path the host resolved --
 * absolute, `..` collapsed, symbolic links followed -- not on whatever
 * string the arguments held.  Answer TG_GUARD_ABSTAIN or TG_GUARD_DENY
 * (with host->set_reason).  A failure status or an unknown verdict denies
 * the intent; the tool's mutation then fails and its call ends as an error
 * naming this guard.  Tool filters and "mode": "shadow" work as for guards.
 * The call is the tool's call, read-only (call_info, arg_get work). */
#define TG_FS_WRITE 1 /* create or overwrite a file                   */
#define TG_FS_EDIT 2  /* change part of an existing file              */
typedef struct tg_fs_intent {
  uint32_t struct_size;
  int32_t kind;        /* TG_FS_WRITE or TG_FS_EDIT                         */
  tg_str path;         /* resolved: what the mutation will really touch     */
  tg_str requested;    /* as the tool named it                              */
  uint32_t exists;     /* 1: the file exists now                            */
  uint32_t via_link;   /* 1: the requested path's last component is a link  */
  tg_str content_hash; /* "sha256:<hex>" of the file now; empty if absent   */
} tg_fs_intent;
typedef tg_status (*tg_fs_guard_fn)(void *user_data, const tg_call *call,
                                    const tg_fs_intent *intent, int32_t *out_verdict);

/* ---- 5.2b static verdicts (since ABI 1.6; optional) ----------------------
 * A pre-execute hook or a guard may also answer, without any call, whether
 * it denies *every* call of a tool by a caller whatever the arguments --
 * a policy rule "deny write_file to scripts", a guard that refuses a tool
 * outright.  The host asks when it offers tools (the MCP gateway leaves
 * such a tool out of tools/list), never to decide a call: every call still
 * runs the hook itself.  Attach one with host->set_tool_verdict after
 * registering the hook; it gets the hook's user_data.  `who` has
 * tool_name, client, agent_id, parent_call_id and depth set (the ids are
 * empty; stage is "tools/list").  Answer TG_TOOL_DENIED_ALWAYS only when no
 * argument object could change your verdict; otherwise TG_TOOL_MAY_PASS.
 * A failure or an unknown answer reads as MAY_PASS -- the tool stays
 * offered and its calls are checked as always. */
#define TG_TOOL_MAY_PASS 0
#define TG_TOOL_DENIED_ALWAYS 1
typedef tg_status (*tg_tool_verdict_fn)(void *user_data, const tg_call_info *who,
                                        int32_t *out_verdict);

/* ---- 5.3 execute wrappers (the onion around dispatch) -----------------
 * The first wrapper is outermost.  Call host->call_next(next, signal, &r)
 * to run the rest of the chain (inner wrappers and the tool body) -- once,
 * several times (retry) or not at all (then return a failure).  Hand
 * `next` a child signal (host->signal_child) to impose a deadline.
 * Return TG_OK with *out_result set to one of the results call_next gave
 * you -- results are opaque host handles, so a wrapper cannot fabricate
 * one -- or a failure status.  Arguments cannot be changed here.
 * Results and child signals are owned by the host and live until this
 * callback returns. */
typedef tg_status (*tg_execute_wrapper_fn)(void *user_data, const tg_call *call,
                                           const tg_signal *signal, const tg_next *next,
                                           const tg_result **out_result);

/* ---- 5.3b execute wrappers in two halves (since ABI 1.7; optional) ----
 * A wrapper that acts only on the way in and on the way out -- a deadline,
 * a measurement -- can be registered as two callbacks instead of one
 * (host->register_execute_wrapper_halves).  Then it holds no thread while
 * a tool that answers later works (an MCP server's, behind the gateway):
 * the host runs every `before`, starts the tool and moves on; every
 * `after` runs on the thread where the tool's answer arrives.  In a chain
 * that also holds a one-callback wrapper (5.3), the host calls your halves
 * around its call_next instead: you write them once either way.  A wrapper
 * that must see a result and then decide to run the chain again (a retry)
 * needs the one-callback form.
 *
 * before(user_data, call, signal, &out_signal, &out_state): on the way in.
 *   *out_signal holds `signal` on entry: leave it to pass `signal` on, or
 *   set it to a child (host->signal_child) to give the rest of the chain a
 *   deadline.  NULL (a signal_child that failed) or any signal the host
 *   did not give you here is a failure -- never a call without your
 *   deadline.  *out_state (NULL on entry) is handed to `after`.  A failure
 *   status ends the call as plugin_error, and `after` is then not called:
 *   free what you allocated.
 * after(user_data, call, result, state): on the way out, once, with the
 *   rest of the chain's result (host->result_is_error, result_error_code),
 *   on any thread and possibly long after `before` returned, never at the
 *   same time as it.  It cannot change the result; a failure status ends
 *   the call as plugin_error.  It is called whenever `before` returned
 *   TG_OK -- also when the host then refuses what before answered (it sees
 *   that plugin_error) -- so free your state here.  `after` may be NULL
 *   when there is nothing to do on the way out; a state set without an
 *   `after` to free it is a failure (and the host cannot free it).
 * Child signals made in `before` live until `after` returns; `result`
 * until `after` returns. */
typedef tg_status (*tg_wrapper_before_fn)(void *user_data, const tg_call *call,
                                          const tg_signal *signal, const tg_signal **out_signal,
                                          void **out_state);
typedef tg_status (*tg_wrapper_after_fn)(void *user_data, const tg_call *call,
                                         const tg_result *result, void *state);

/* ---- 5.4 post-execute (a waterfall over the candidate result) ---------
 * Runs for executed calls and for denied ones: host->call_outcome() tells
 * which.  Read the candidate with host->result_json(), or only its strings
 * with host->visit_strings() (ABI 1.8: no JSON text).  Answer ACCEPT, or
 * REPLACE after host->set_result(call, json), or BLOCK after
 * host->set_reason().  Any verdict may also queue a context string for the
 * model with host->add_context().  For a denied call a replacement may only
 * reword the denial -- its content, error.message and each
 * error.denials[].reason; the host keeps isError, the code, stage, source
 * and the denials' sources (a rewording that changes the denials is a
 * failure of the hook). */
#define TG_POST_ACCEPT 0
#define TG_POST_REPLACE 1
#define TG_POST_BLOCK 2
typedef tg_status (*tg_post_execute_fn)(void *user_data, tg_call *call, int32_t *out_verdict);

/* ---- 5.5 result observers (read only) ---------------------------------
 * Receive the frozen outcome (host->result_json: identity, original and
 * final arguments, every stage's verdict, timings, the result).  Their
 * failures are logged and change nothing.  Run in registration order. */
typedef tg_status (*tg_result_observer_fn)(void *user_data, const tg_call *call);

/* ---- 5.6 tools ---------------------------------------------------------
 * execute: run the tool.  On success set the value with
 * host->set_value(call, json) and return TG_OK.  On failure set a message
 * with host->set_error and return TG_ERROR (or TG_TIMEOUT / TG_CANCELLED
 * if you stopped because of the signal).  A failing tool is an ordinary
 * outcome ("tool_error"), not a plugin failure.  Check the signal often:
 * host->signal_fired() or host->signal_wait().
 *
 * render (optional): turn host->value_json() into content blocks with
 * host->set_content(call, json-array).  Default: a string becomes one text
 * block, anything else its JSON text.
 *
 * finalize_content (optional): the tool author's last content invariant
 * (size cap, redaction).  Read host->result_json(), write a new content
 * array with host->set_content().  Only content may change; a failure makes
 * the result an error whose content is the failure message.
 *
 * present_call, present_result (optional, ABI 1.4): UI cards -- content
 * blocks for the user interface of the program embedding the host, never
 * shown to the model.  present_call runs right after the call is logged,
 * with host->arguments_json() as the caller sent them: the pending card.
 * present_result runs right after the result is logged, with the final
 * arguments and host->result_json(): the completed card.  Write the card
 * with host->set_content(call, json-array).  A card that fails (an error
 * status, no set_content, invalid blocks) changes nothing in the call; it
 * is reported and dropped.  Only called when the embedder shows cards. */
#define TG_TOOL_READ_ONLY 0x01u
#define TG_TOOL_DESTRUCTIVE 0x02u
#define TG_TOOL_IDEMPOTENT 0x04u
#define TG_TOOL_OPEN_WORLD 0x08u

typedef tg_status (*tg_tool_execute_fn)(void *user_data, tg_call *call, const tg_signal *signal);
typedef tg_status (*tg_tool_render_fn)(void *user_data, tg_call *call);
typedef tg_status (*tg_tool_finalize_fn)(void *user_data, tg_call *call);
typedef tg_status (*tg_tool_present_fn)(void *user_data, tg_call *call);

typedef struct tg_tool_definition {
  uint32_t struct_size;
  const char *name;                     /* copied                                  */
  const char *description;              /* copied; may be NULL                     */
  tg_str input_schema_json;             /* copied; a JSON Schema object or empty   */
  tg_str output_schema_json;            /* copied; optional                        */
  uint32_t annotations;                 /* TG_TOOL_* bits                          */
  tg_tool_execute_fn execute;           /* required                                */
  tg_tool_render_fn render;             /* optional                                */
  tg_tool_finalize_fn finalize_content; /* optional                        */
  void *user_data;
  /* Appended in 1.4 (read only when struct_size covers them): */
  tg_tool_present_fn present_call;   /* optional: the pending UI card      */
  tg_tool_present_fn present_result; /* optional: the completed UI card    */
} tg_tool_definition;

/* Options common to every hook registration (copied by the host). */
typedef struct tg_hook_options {
  uint32_t struct_size;
  const char *name;        /* required, unique within the plugin; the   */
                           /* hook's id is "plugin-id/name"             */
  const char *tool_filter; /* glob over tool names ("fs.*"); NULL = all */
  int32_t priority;        /* waterfalls: higher runs first; default 0  */
  void *user_data;         /* passed back to every invocation           */
} tg_hook_options;

/* Outcome of a call as post-execute hooks see it (host->call_outcome). */
#define TG_OUTCOME_EXECUTED 0 /* the tool body ran (it may have failed) */
#define TG_OUTCOME_DENIED 1   /* pre-execute, approval or a guard denied */

/* Log levels for host->log. */
#define TG_LOG_DEBUG 0
#define TG_LOG_INFO 1
#define TG_LOG_WARN 2
#define TG_LOG_ERROR 3

/* Typed value for host->arg_get and host->config_get: which member is
 * meaningful depends on `type`.  `string` is borrowed for the callback (for
 * config_get: until init returns).  Set struct_size = sizeof(tg_json_value)
 * first; a smaller one is refused with TG_INVALID_ARGUMENT.  Arrays and
 * objects give their element count in `size`: read the elements with a
 * longer pointer ("/paths/0", "/paths/1", ... up to size - 1). */
#define TG_JSON_NULL 0
#define TG_JSON_BOOL 1
#define TG_JSON_INT 2    /* integral and fits int64_t (5.0 too)          */
#define TG_JSON_DOUBLE 3 /* any other number                              */
#define TG_JSON_STRING 4
#define TG_JSON_ARRAY 5
#define TG_JSON_OBJECT 6
typedef struct tg_json_value {
  uint32_t struct_size;
  int32_t type;    /* TG_JSON_*                                          */
  int32_t boolean; /* TG_JSON_BOOL                                       */
  int64_t integer; /* TG_JSON_INT                                        */
  double number;   /* TG_JSON_INT and TG_JSON_DOUBLE                     */
  tg_str string;   /* TG_JSON_STRING: the unescaped UTF-8 text           */
  size_t size;     /* TG_JSON_ARRAY / OBJECT: number of elements         */
} tg_json_value;

/* ======================================================================
 * 6. The host API table
 * ======================================================================
 * Handed to init and valid until shutdown returns.  Append-only: check
 * `struct_size` before using an entry added in a later minor version
 * (TOOLGATE_HOST_HAS(api, member)).  Every function is thread-safe.
 * Functions returning tg_status return TG_WRONG_STAGE when called from a
 * stage that may not use them (for example set_arguments from a guard).
 */
#define TOOLGATE_HOST_HAS(api, member) \
  ((api)->struct_size >= offsetof(tg_host_api, member) + sizeof((api)->member))

struct tg_host_api {
  uint32_t struct_size;
  uint16_t abi_major; /* the host's TOOLGATE_ABI_MAJOR */
  uint16_t abi_minor; /* the host's TOOLGATE_ABI_MINOR */

  /* ---- registration (init only; ctx is the init context) ---------------
   * Options and definitions are copied.  Each fails with
   * TG_INVALID_ARGUMENT (bad name, duplicate name, NULL callback, kind not
   * declared in capabilities) and explains why in the init error. */
  tg_status (*register_pre_execute)(tg_init_ctx *ctx, const tg_hook_options *o,
                                    tg_pre_execute_fn fn);
  tg_status (*register_guard)(tg_init_ctx *ctx, const tg_hook_options *o, tg_guard_fn fn);
  tg_status (*register_execute_wrapper)(tg_init_ctx *ctx, const tg_hook_options *o,
                                        tg_execute_wrapper_fn fn);
  tg_status (*register_post_execute)(tg_init_ctx *ctx, const tg_hook_options *o,
                                     tg_post_execute_fn fn);
  tg_status (*register_result_observer)(tg_init_ctx *ctx, const tg_hook_options *o,
                                        tg_result_observer_fn fn);
  tg_status (*register_tool)(tg_init_ctx *ctx, const tg_tool_definition *def);

  /* init failures: the message (and for config, the JSON Pointer into the
   * config object) are copied and reported with the plugin's id. */
  void (*init_error)(tg_init_ctx *ctx, const char *message);
  void (*reject_config)(tg_init_ctx *ctx, const char *json_pointer, const char *message);

  /* ---- reading a call (any stage) -------------------------------------- */
  /* Fills *out (set out->struct_size first).  Strings are borrowed. */
  tg_status (*call_info)(const tg_call *call, tg_call_info *out);
  /* The current arguments as JSON object text (borrowed). */
  tg_status (*arguments_json)(const tg_call *call, tg_str *out);
  /* One argument by RFC 6901 JSON Pointer ("/path", "/paths/0"; "" is the
   * whole object), without parsing anything: the host keeps the arguments
   * parsed.  TG_NOT_FOUND when absent. */
  tg_status (*arg_get)(const tg_call *call, const char *json_pointer, tg_json_value *out);
  /* Convenience: a string argument.  TG_TYPE_MISMATCH if not a string. */
  tg_status (*arg_string)(const tg_call *call, const char *json_pointer, tg_str *out);
  /* The decision so far (TG_PRE_*), pre-execute and later stages. */
  int32_t (*current_decision)(const tg_call *call);
  /* TG_OUTCOME_* (post-execute, observers, finalize). */
  int32_t (*call_outcome)(const tg_call *call);
  /* The candidate result as result-shape JSON (post-execute, finalize), or
   * the frozen outcome record (observers).  Borrowed. */
  tg_status (*result_json)(const tg_call *call, tg_str *out);
  /* The tool's value as JSON (render).  Borrowed. */
  tg_status (*value_json)(const tg_call *call, tg_str *out);

  /* ---- answering (copied; stage-checked) ------------------------------- */
  /* Failure message for a non-OK return, any stage. */
  void (*set_error)(const tg_call *call, const char *message);
  /* Reason for ASK / DENY / BLOCK. */
  tg_status (*set_reason)(const tg_call *call, tg_str reason);
  /* pre-execute only: replacement arguments (a JSON object). */
  tg_status (*set_arguments)(tg_call *call, tg_str json_object);
  /* post-execute only: replacement result in the result shape. */
  tg_status (*set_result)(tg_call *call, tg_str result_json);
  /* post-execute only: queue a context string for the model. */
  tg_status (*add_context)(tg_call *call, tg_str text);
  /* tool execute only: the tool's JSON value. */
  tg_status (*set_value)(tg_call *call, tg_str json);
  /* render and finalize only: the content block array. */
  tg_status (*set_content)(tg_call *call, tg_str json_array);

  /* ---- execute wrappers ------------------------------------------------
   * Runs the rest of the chain with `signal` (the one you received, or a
   * child of it).  *out is a host-owned handle valid until your wrapper
   * returns.  Returns a failure only if the chain could not be run at all
   * (a tool failure is a result, not a failure). */
  tg_status (*call_next)(const tg_next *next, const tg_signal *signal, const tg_result **out);
  /* 1 if the result is an error, else 0. */
  int32_t (*result_is_error)(const tg_result *result);
  /* The error code ("tool_error", "timeout", ...); empty when not an error. */
  tg_str (*result_error_code)(const tg_result *result);

  /* ---- signals -----------------------------------------------------------
   * A signal fires when cancelled or when its deadline passes; a child
   * fires when its parent does.  Child signals are owned by the host and
   * live until the wrapper callback that made them returns. */
  const tg_signal *(*signal_child)(const tg_signal *parent, uint64_t timeout_ns);
  /* 0 = not fired, TG_CANCELLED or TG_TIMEOUT. */
  int32_t (*signal_fired)(const tg_signal *signal);
  /* Block up to timeout_ns or until the signal fires; returns as
   * signal_fired does.  This is how a tool sleeps cooperatively. */
  int32_t (*signal_wait)(const tg_signal *signal, uint64_t timeout_ns);

  /* ---- events and logs (copied) ----------------------------------------- */
  /* Append a tool- or plugin-owned event ("fs/observed") to the session's
   * event log; data is a JSON object. */
  tg_status (*emit_event)(const tg_call *call, const char *type, tg_str data_json);
  /* Log through the host's logger, tagged with the plugin id. */
  void (*log)(const tg_call *call_or_null, int32_t level, tg_str message);

  /* ---- since ABI 1.2: reading the config (init only) -------------------
   * The plugin's `config` object, read by RFC 6901 JSON Pointer without
   * parsing anything, exactly as arg_get / arg_string read arguments:
   * "" is the whole object, "/paths/0" an array element, "/a~1b" the key
   * "a/b".  TG_NOT_FOUND when absent, TG_TYPE_MISMATCH from config_string
   * when the value is not a string, TG_INVALID_ARGUMENT for a NULL or
   * non-pointer argument or a too-small out->struct_size (the reason is
   * added to init's failure message).  Strings are borrowed until init
   * returns: copy what you keep.  With a config_schema, what it requires is
   * there and of its type, so only optional keys need the TG_NOT_FOUND
   * case. */
  tg_status (*config_get)(tg_init_ctx *ctx, const char *json_pointer, tg_json_value *out);
  tg_status (*config_string)(tg_init_ctx *ctx, const char *json_pointer, tg_str *out);

  /* ---- since ABI 1.5: file mutations (docs/design.md §2.13) -------------
   * register_fs_guard: as register_guard, for TG_CAP_FS_GUARD (5.2a).
   *
   * fs_intent (a tool body only): call it right before creating,
   * overwriting or editing a file, with kind TG_FS_WRITE or TG_FS_EDIT and
   * the path.  The host resolves the path, checks read-before-edit (an
   * existing file must have been observed in this session with the content
   * it has now) and runs the fs guards.  TG_OK: go ahead, and write to
   * *out_path (the resolved path, borrowed for the callback) -- not to the
   * name you passed, which may resolve differently later.  TG_DENIED: do not
   * touch the file; *out_reason says why (borrowed), and the call ends as an
   * error naming the refusal whatever the tool then returns.
   *
   * fs_observed (a tool body only): the session has now seen `path` with
   * this content (a read, or the tool's own write): a later edit of it is
   * checked against `content_hash` ("sha256:<hex>" of the bytes; empty:
   * the host hashes the file itself). */
  tg_status (*register_fs_guard)(tg_init_ctx *ctx, const tg_hook_options *o, tg_fs_guard_fn fn);
  tg_status (*fs_intent)(tg_call *call, int32_t kind, tg_str path, tg_str *out_path,
                         tg_str *out_reason);
  tg_status (*fs_observed)(tg_call *call, tg_str path, tg_str content_hash);

  /* ---- since ABI 1.6: static verdicts (5.2b; init only) ------------------
   * Attaches `fn` to this plugin's pre-execute hook or guard named
   * `hook_name`, registered before.  TG_INVALID_ARGUMENT (explained in the
   * init error) for an unknown name, another kind of hook, a NULL fn or a
   * second verdict for the same hook. */
  tg_status (*set_tool_verdict)(tg_init_ctx *ctx, const char *hook_name, tg_tool_verdict_fn fn);

  /* ---- since ABI 1.6: the client's context (any stage with a call) --------
   * What the entry point knows about the calling client, read by JSON
   * Pointer exactly like arg_get; set by the entry point, never by a hook.
   * Keys so far:
   *   /roots  array of strings: the client's root folders as absolute
   *           paths (the MCP gateway: the client's roots/list, its file://
   *           URIs as paths).  Absent when the client declared no roots;
   *           an empty array when it declared roots and named none.
   * TG_NOT_FOUND for anything absent -- always, where the entry point
   * knows nothing (the CLI, an embedder that sets nothing). */
  tg_status (*client_context_get)(const tg_call *call, const char *json_pointer,
                                  tg_json_value *out);

  /* ---- since ABI 1.7: execute wrappers in two halves (5.3b; init only) ---
   * As register_execute_wrapper (TG_CAP_EXECUTE_WRAPPER), with `before`
   * required and `after` optional. */
  tg_status (*register_execute_wrapper_halves)(tg_init_ctx *ctx, const tg_hook_options *o,
                                               tg_wrapper_before_fn before,
                                               tg_wrapper_after_fn after);

  /* ---- since ABI 1.8: every string, without JSON text ----------------------
   * Calls fn(user_data, text) once for each string in what `which` names,
   * in document order, with nothing written as JSON or parsed; the text is
   * borrowed until visit_strings returns.  fn returns 0 to go on, anything else
   * to stop there (visit_strings still returns TG_OK).  For a plugin that
   * only looks -- a secret scanner that, finding nothing, needs no copy of
   * the result; when it finds something it reads result_json as before.
   *   TG_STRINGS_ARGUMENTS  the current arguments (any stage with a call):
   *                         every string value and every object key.
   *   TG_STRINGS_RESULT     the result (post-execute: the candidate;
   *                         finalize and present_result: the one being
   *                         finalized; observers: the final one): every
   *                         string value and object key in its content
   *                         blocks and its value, and the strings of its
   *                         error (code, message, stage, source, each
   *                         denial's source and reason).  TG_WRONG_STAGE
   *                         in other stages.
   * TG_INVALID_ARGUMENT for a NULL fn or an unknown `which`. */
  tg_status (*visit_strings)(const tg_call *call, int32_t which, tg_string_visitor_fn fn,
                             void *user_data);
};

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TOOLGATE_TOOLGATE_H */
