//! The answer of a run as JSON (S24).

#[allow(unused_imports)]
use crate::prelude::*;

use super::*;
use serde_json::{Map, Value, json};

/// `null` or `{reason, pc}` (S24).
pub(crate) fn error_json(e: &Option<StreamError>) -> Value {
    match e {
        None => Value::Null,
        Some(e) => json!({ "reason": e.reason.number(), "pc": e.pc }),
    }
}

/// One submitted command's object (S24), open for more keys (S36's `stream`).
pub(crate) fn command_json(c: &SubmittedCommand) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("sequence".into(), json!(c.sequence));
    map.insert("slot".into(), json!(c.slot));
    map.insert("pass_index".into(), json!(c.pass_index));
    map.insert("pc".into(), json!(c.pc));
    map.insert("queued".into(), json!(c.queued));
    map.insert("handler".into(), json!(c.handler));
    map.insert("first".into(), json!(c.first));
    map.insert("count".into(), json!(c.count));
    map.insert("flags".into(), json!(c.flags));
    map.insert("args".into(), json!(c.args));
    map
}

/// One event's object (S24).
pub(crate) fn event_json(e: &Event) -> Value {
    json!({
        "kind": e.kind,
        "req": e.req,
        "auxiliary": e.auxiliary,
        "pass_index": e.pass_index,
    })
}

impl SimResult {
    /// The JSON of a run exactly as S24 (an error if the params hold a closure).
    pub fn to_json_value(&self) -> Result<Value, crate::params::ParamsError> {
        let commands: Vec<Value> = self
            .commands
            .iter()
            .map(|c| Value::Object(command_json(c)))
            .collect();
        let events: Vec<Value> = self.events.iter().map(event_json).collect();
        Ok(json!({
            "params": self.params.to_json_value()?,
            "check": error_json(&self.check),
            "commands": commands,
            "events": events,
            "status": self.status.as_str(),
            "passes": self.passes,
            "error": error_json(&self.error),
            "halt": self.halt,
            "stopped": self.stopped,
        }))
    }

    /// Reads the S24 object. Extra top-level keys (such as a saved answer's
    /// `notes`) are ignored; inside the nested objects every key must be known.
    pub fn from_json_value(value: &Value) -> Result<SimResult, AnswerError> {
        let top = value
            .as_object()
            .ok_or_else(|| AnswerError("not a JSON object".into()))?;
        let get = |key: &str| {
            top.get(key)
                .ok_or_else(|| AnswerError(format!("missing `{key}`")))
        };
        let params = Params::from_json_value(get("params")?)
            .map_err(|e| AnswerError(format!("params: {e}")))?;
        let commands = list(get("commands")?, "commands", command_from_json)?;
        let events = list(get("events")?, "events", event_from_json)?;
        let status = status_from_json(get("status")?)?;
        let halt = match get("halt")? {
            Value::Null => None,
            v => Some(int(v, "halt", u32::MAX.into())? as u32),
        };
        Ok(SimResult {
            params,
            check: error_from_json(get("check")?, "check")?,
            commands,
            events,
            status,
            passes: int(get("passes")?, "passes", u64::MAX)?,
            error: error_from_json(get("error")?, "error")?,
            halt,
            stopped: get("stopped")?
                .as_bool()
                .ok_or_else(|| AnswerError("`stopped` is not a boolean".into()))?,
        })
    }
}

pub(crate) fn array<'a>(v: &'a Value, what: &str) -> Result<&'a Vec<Value>, AnswerError> {
    v.as_array()
        .ok_or_else(|| AnswerError(format!("`{what}` is not an array")))
}

/// The array `what`, each element read by `read`.
pub(crate) fn list<T>(
    v: &Value,
    what: &str,
    read: impl Fn(&Value) -> Result<T, AnswerError>,
) -> Result<Vec<T>, AnswerError> {
    array(v, what)?.iter().map(read).collect()
}

/// A JSON integer in 0..=max (a boolean is not one).
pub(crate) fn int(v: &Value, what: &str, max: u64) -> Result<u64, AnswerError> {
    v.as_u64()
        .filter(|&n| n <= max)
        .ok_or_else(|| AnswerError(format!("`{what}` is not an integer in 0..={max}")))
}

/// An object with exactly `keys`.
pub(crate) fn fields<'a>(
    v: &'a Value,
    what: &str,
    keys: &[&str],
) -> Result<&'a Map<String, Value>, AnswerError> {
    let o = v
        .as_object()
        .ok_or_else(|| AnswerError(format!("`{what}` entry is not an object")))?;
    if let Some(k) = o.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(AnswerError(format!("`{what}`: unknown key `{k}`")));
    }
    if let Some(k) = keys.iter().find(|k| !o.contains_key(**k)) {
        return Err(AnswerError(format!("`{what}`: missing `{k}`")));
    }
    Ok(o)
}

/// S24's `status`: "ended", "error" or "stuck".
pub(crate) fn status_from_json(v: &Value) -> Result<Status, AnswerError> {
    match v.as_str() {
        Some("ended") => Ok(Status::Ended),
        Some("error") => Ok(Status::Error),
        Some("stuck") => Ok(Status::Stuck),
        _ => Err(AnswerError(
            "`status` is not \"ended\", \"error\" or \"stuck\"".into(),
        )),
    }
}

pub(crate) fn error_from_json(v: &Value, what: &str) -> Result<Option<StreamError>, AnswerError> {
    if v.is_null() {
        return Ok(None);
    }
    let o = fields(v, what, &["reason", "pc"])?;
    let n = int(&o["reason"], "reason", 255)? as u8;
    let reason =
        Reason::from_u8(n).ok_or_else(|| AnswerError(format!("`{what}`: no reason {n}")))?;
    let pc = int(&o["pc"], "pc", u32::MAX.into())? as u32;
    Ok(Some(StreamError { reason, pc }))
}

pub(crate) fn command_from_json(v: &Value) -> Result<SubmittedCommand, AnswerError> {
    let keys = [
        "sequence",
        "slot",
        "pass_index",
        "pc",
        "queued",
        "handler",
        "first",
        "count",
        "flags",
        "args",
    ];
    let o = fields(v, "commands", &keys)?;
    let u32max = u64::from(u32::MAX);
    let args_json = array(&o["args"], "args")?;
    if args_json.len() != 10 {
        return Err(AnswerError("`args` must have ten words".into()));
    }
    let mut args = [0u32; 10];
    for (a, j) in args.iter_mut().zip(args_json) {
        *a = int(j, "args", u32max)? as u32;
    }
    Ok(SubmittedCommand {
        sequence: int(&o["sequence"], "sequence", u64::MAX)?,
        slot: int(&o["slot"], "slot", 15)? as u8,
        handler: int(&o["handler"], "handler", 255)? as u8,
        first: int(&o["first"], "first", u32max)? as u32,
        count: int(&o["count"], "count", u32max)? as u32,
        flags: int(&o["flags"], "flags", 255)? as u8,
        args,
        pass_index: int(&o["pass_index"], "pass_index", u64::MAX)?,
        pc: int(&o["pc"], "pc", u32max)? as u32,
        queued: o["queued"]
            .as_bool()
            .ok_or_else(|| AnswerError("`queued` is not a boolean".into()))?,
    })
}

pub(crate) fn event_from_json(v: &Value) -> Result<Event, AnswerError> {
    let o = fields(v, "events", &["kind", "req", "auxiliary", "pass_index"])?;
    Ok(Event {
        kind: int(&o["kind"], "kind", 255)? as u8,
        req: int(&o["req"], "req", u32::MAX.into())? as u32,
        auxiliary: int(&o["auxiliary"], "auxiliary", 0xFF_FFFF)? as u32,
        pass_index: int(&o["pass_index"], "pass_index", u64::MAX)?,
    })
}
