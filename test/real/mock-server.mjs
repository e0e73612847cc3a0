// A scripted loopback model server for recording real coding-agent clients.
//
// It speaks four wire protocols, enough for each client to run a turn:
//   - Anthropic Messages        POST …/v1/messages            (SSE when stream:true, JSON otherwise)
//   - OpenAI Responses          POST …/responses              (SSE when stream:true)
//   - OpenAI chat completions   POST …/chat/completions       (SSE when stream:true)
//   - Gemini                    POST …/models/M:generateContent | :streamGenerateContent | :countTokens
// plus the small side requests clients make (model lists, token counts).
//
// Answers are scripted by the text of the latest user prompt (see `plan`): plain text, or a tool call
// (shell `echo hi`, a subagent, a task list) followed by a final text once the tool result comes back.
// Requests it does not know are answered 404 and logged (with their body) to `unknownLog`.
//
// The server listens on 127.0.0.1 at a port the OS picks, and closes itself after `maxRequests`
// requests or `maxMs` milliseconds, whichever comes first.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';

export const TITLE = 'Mock session title';

/** Phrases the recorder types; each selects a script. */
export const SCRIPTS = {
  shell: 'please run echo hi',
  subagent: 'delegate to a subagent',
  tasks: 'create a task list',
};

export const SHELL_TOOLS = ['Bash', 'bash', 'shell_command', 'exec_command', 'shell', 'run_shell_command', 'local_shell', 'Execute'];
export const AGENT_TOOLS = ['Agent', 'Task', 'task', 'spawn_agent', 'invoke_agent', 'generalist', 'codebase_investigator', 'agent'];

// ---------------------------------------------------------------------------------------------------
// Scripting

/** Build a value that satisfies a JSON schema, preferring `hints` by property name. */
export function fromSchema(schema, hints = {}, key = '') {
  if (!schema || typeof schema !== 'object') return hints[key] ?? 'ok';
  if (key in hints) return hints[key];
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const alt = schema.anyOf || schema.oneOf;
  if (Array.isArray(alt) && alt.length) return fromSchema(alt.find((s) => s && s.type !== 'null') || alt[0], hints, key);
  return fromType(schemaType(schema), schema, hints, key);
}

/** The schema's type: the first that is not null, lower case; an object when it has properties and no type. */
function schemaType(schema) {
  let type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (typeof type === 'string') type = type.toLowerCase();
  if (!type && schema.properties) type = 'object';
  return type;
}

function fromType(type, schema, hints, key) {
  switch (type) {
    case 'object': {
      const out = {};
      const props = schema.properties || {};
      const required = new Set(schema.required || []);
      for (const [k, s] of Object.entries(props)) if (required.has(k) || k in hints) out[k] = fromSchema(s, hints, k);
      return out;
    }
    case 'array':
      return schema.items ? [fromSchema(schema.items, hints, '')] : [];
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      return key === 'title' ? TITLE : 'ok';
  }
}

export function findTool(tools, names) {
  for (const n of names) {
    const t = tools.find((x) => x.name === n);
    if (t) return t;
  }
  return undefined;
}

export function shellArgs(tool, cmd = 'echo hi', description = 'Print hi') {
  const props = tool.schema?.properties || {};
  const command = props.command?.type === 'array' ? ['bash', '-lc', cmd] : cmd;
  return fromSchema(tool.schema || { type: 'object' }, {
    command,
    cmd,
    description,
    is_background: false,
    workdir: undefined,
    justification: undefined,
  });
}

/** Arguments for a subagent tool (Agent, spawn_agent, task, invoke_agent) that hands `prompt` to the subagent. */
export function agentArgs(tool, prompt = 'Reply with the word hi.', description = 'Say hi', kind = undefined) {
  const st = tool.schema?.properties?.subagent_type;
  const subagent_type = st?.enum?.[0] ?? kind ?? (tool.name === 'task' ? 'general' : 'general-purpose');
  return fromSchema(tool.schema || { type: 'object' }, {
    description,
    prompt,
    subagent_type,
    agent_name: 'generalist',
    message: prompt,
    query: prompt,
    objective: prompt,
    task: prompt,
  });
}

/**
 * Decide the next answer from a normalised request:
 *   { tools: [{name, schema}], prompt: string, steps: number, system: string, jsonSchema?: object }
 * `steps` is how many tool calls the assistant made since the prompt.
 * Returns { text } or { tool: {name, args} }.
 */
export function plan(req, { title = TITLE } = {}) {
  // Copilot CLI prepends the time to every prompt it sends.
  const prompt = (req.prompt || '').replace(/^\s*<current_datetime>[^<]*<\/current_datetime>\s*/, '');
  const sys = req.system || '';
  if (req.jsonSchema)
    return { text: JSON.stringify(fromSchema(req.jsonSchema, { title, isNewTopic: true, next_speaker: 'user', reasoning: 'done' })) };
  if (isTitleRequest(req)) {
    if (/isNewTopic|"title"\s*:/.test(sys + prompt)) return { text: JSON.stringify({ isNewTopic: true, title }) };
    return { text: title };
  }
  const tools = req.tools || [];
  if (prompt.includes(SCRIPTS.shell)) {
    const t = findTool(tools, SHELL_TOOLS);
    if (t && req.steps === 0) return { tool: { name: t.name, namespace: t.namespace, args: shellArgs(t) } };
    return { text: 'Ran the command; it printed hi.' };
  }
  if (prompt.includes(SCRIPTS.subagent)) {
    const t = findTool(tools, AGENT_TOOLS);
    // Droid names its subagent types in a reminder ("Built-in subagent types: - worker: …"), not in the schema.
    const kind = /Built-in subagent types:\s*- worker:/.test(req.context || '') ? 'worker' : undefined;
    if (t && req.steps === 0) return { tool: { name: t.name, namespace: t.namespace, args: agentArgs(t, undefined, undefined, kind) } };
    return { text: 'The subagent answered hi.' };
  }
  if (prompt.includes(SCRIPTS.tasks)) return planTasks(req, tools);
  if (req.steps > 0) return { text: 'Done.' };
  return { text: `Mock answer to: ${prompt.replace(/\s+/g, ' ').slice(0, 80)}` };
}

/**
 * The task-list script: Claude Code's TaskCreate/TaskUpdate (loaded through ToolSearch when deferred),
 * one call a step, or one call of a todo tool (TodoWrite, todowrite, write_todos, update_plan).
 */
function planTasks(req, tools) {
  const create = findTool(tools, ['TaskCreate']);
  const called = req.called || [];
  // Claude Code defers its task tools: load them through ToolSearch first.
  if (!create && findTool(tools, ['ToolSearch']) && /\bTaskCreate\b/.test(req.context || '') && !called.includes('ToolSearch')) {
    return { tool: { name: 'ToolSearch', args: { query: 'select:TaskCreate,TaskUpdate' } } };
  }
  if (create) return taskCalls(create, findTool(tools, ['TaskUpdate']), called);
  const todo = findTool(tools, ['TodoWrite', 'todowrite', 'write_todos', 'update_plan']);
  if (todo && req.steps === 0) return todoCall(todo);
  return { text: 'Created the task list.' };
}

/** Two TaskCreate calls and a TaskUpdate, the next one not yet called. */
function taskCalls(create, update, called) {
  const done = called.filter((n) => n === 'TaskCreate' || n === 'TaskUpdate').length;
  const steps = [
    {
      name: create.name,
      args: fromSchema(create.schema, {
        subject: 'Write the plan',
        description: 'Write the plan down',
        activeForm: 'Writing the plan',
      }),
    },
    {
      name: create.name,
      args: fromSchema(create.schema, {
        subject: 'Check the result',
        description: 'Check the result',
        activeForm: 'Checking the result',
      }),
    },
  ];
  if (update) steps.push({ name: update.name, args: fromSchema(update.schema, { taskId: '1', status: 'completed' }) });
  if (done < steps.length) return { tool: steps[done] };
  return { text: 'Created the task list.' };
}

/** One call of a todo tool with two items. */
function todoCall(todo) {
  const items = [
    {
      content: 'Write the plan',
      status: 'completed',
      activeForm: 'Writing the plan',
      priority: 'high',
      id: '1',
      description: 'Write the plan',
      step: 'Write the plan',
    },
    {
      content: 'Check the result',
      status: 'in_progress',
      activeForm: 'Checking the result',
      priority: 'medium',
      id: '2',
      description: 'Check the result',
      step: 'Check the result',
    },
  ];
  return {
    tool: {
      name: todo.name,
      args: { todos: items, plan: items.map(({ step, status }) => ({ step, status })), ...(todo.name === 'update_plan' ? {} : {}) },
    },
  };
}

export function isTitleRequest(req) {
  const s = `${req.system || ''}\n${(req.tools || []).length ? '' : req.prompt || ''}`;
  if ((req.tools || []).length) return false;
  return /\btitle\b/i.test(s) && /(generate|summar|concise|short)/i.test(s);
}

// ---------------------------------------------------------------------------------------------------
// Request normalisation per protocol

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (typeof b === 'string' ? b : (b?.text ?? ''))).join('\n');
}

function anthropicReq(body) {
  const msgs = body.messages || [];
  let steps = 0;
  let prompt = '';
  const called = [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    const blocks = Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }];
    if (m.role === 'assistant') {
      for (const b of blocks)
        if (b.type === 'tool_use') {
          steps++;
          called.push(b.name);
        }
      continue;
    }
    if (m.role !== 'user') continue;
    const texts = blocks.filter((b) => b.type === 'text' && !/^\s*<system-reminder>/.test(b.text || ''));
    if (texts.length && !blocks.some((b) => b.type === 'tool_result')) {
      prompt = texts.map((b) => b.text).join('\n');
      break;
    }
  }
  const system = textOf(body.system);
  const schema = body.output_format?.schema || body.output_config?.format?.schema;
  const context = msgs
    .filter((m) => m.role === 'system')
    .map((m) => textOf(m.content))
    .join('\n');
  return {
    tools: (body.tools || []).filter((t) => t.name).map((t) => ({ name: t.name, schema: t.input_schema })),
    prompt,
    steps,
    called,
    system,
    context,
    jsonSchema: schema,
  };
}

function responsesReq(body) {
  const input = Array.isArray(body.input) ? body.input : [{ type: 'message', role: 'user', content: body.input }];
  let steps = 0;
  let prompt = '';
  for (let i = input.length - 1; i >= 0; i--) {
    const it = input[i];
    if (it.type === 'function_call' || it.type === 'custom_tool_call' || it.type === 'local_shell_call') {
      steps++;
      continue;
    }
    if ((it.type === 'message' || !it.type) && it.role === 'user') {
      const t = textOf(it.content);
      if (/^\s*<(environment_context|user_instructions|permissions|INSTRUCTIONS)/.test(t) || /^# AGENTS\.md/.test(t)) continue;
      prompt = t;
      break;
    }
  }
  const tools = [];
  for (const t of body.tools || []) {
    if (t.type === 'namespace' && Array.isArray(t.tools))
      for (const u of t.tools) tools.push({ name: u.name, schema: u.parameters, namespace: t.name });
    else tools.push({ name: t.name || t.type, schema: t.parameters });
  }
  const schema = body.text?.format?.type === 'json_schema' ? body.text.format.schema : undefined;
  return { tools, prompt, steps, system: textOf(body.instructions), jsonSchema: schema };
}

function chatReq(body) {
  const msgs = body.messages || [];
  let steps = 0;
  let prompt = '';
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m.role === 'assistant') {
      steps += (m.tool_calls || []).length;
      continue;
    }
    // Qwen Code puts <system-reminder> blocks before the prompt (own parts, or the prompt's own text).
    if (m.role === 'user') {
      prompt = textOf(m.content)
        .replace(/<system-reminder>[\s\S]*?<\/system-reminder>\s*/g, '')
        .trim();
      break;
    }
  }
  const system = msgs
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n');
  const tools = (body.tools || []).map((t) => ({ name: t.function?.name, schema: t.function?.parameters })).filter((t) => t.name);
  const schema = body.response_format?.type === 'json_schema' ? body.response_format.json_schema?.schema : undefined;
  const context = msgs
    .filter((m) => m.role === 'user')
    .map((m) => textOf(m.content))
    .join('\n');
  return { tools, prompt, steps, system, context, jsonSchema: schema };
}

function geminiReq(body) {
  const contents = body.contents || [];
  let steps = 0;
  let prompt = '';
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i];
    const parts = c.parts || [];
    if (c.role === 'model') {
      steps += parts.filter((p) => p.functionCall).length;
      continue;
    }
    if (parts.some((p) => p.functionResponse)) continue;
    // Gemini CLI puts its <session_context> block in the first user turn, before the prompt.
    const t = parts
      .filter((p) => typeof p.text === 'string' && !/^\s*<session_context>/.test(p.text))
      .map((p) => p.text)
      .join('\n');
    if (t) {
      prompt = t;
      break;
    }
  }
  const tools = [];
  for (const t of body.tools || [])
    for (const d of t.functionDeclarations || []) tools.push({ name: d.name, schema: d.parametersJsonSchema || d.parameters });
  const gc = body.generationConfig || {};
  const schema = gc.responseMimeType === 'application/json' ? gc.responseJsonSchema || gc.responseSchema || { type: 'object' } : undefined;
  return { tools, prompt, steps, system: textOf(body.systemInstruction?.parts), jsonSchema: schema };
}

// ---------------------------------------------------------------------------------------------------
// Encoders

let seq = 0;
const nextId = (p) => `${p}${Date.now().toString(36)}${(++seq).toString(36)}`;
const sse = (event, data) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

function anthropicMessage(body, ans) {
  const content = ans.tool
    ? [
        { type: 'text', text: 'Working on it.' },
        { type: 'tool_use', id: nextId('toolu_mock'), name: ans.tool.name, input: ans.tool.args },
      ]
    : [{ type: 'text', text: ans.text }];
  return {
    id: nextId('msg_mock'),
    type: 'message',
    role: 'assistant',
    model: body.model || 'mock',
    content,
    stop_reason: ans.tool ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function anthropicStream(msg) {
  let out = sse('message_start', {
    type: 'message_start',
    message: { ...msg, content: [], stop_reason: null, usage: { ...msg.usage, output_tokens: 1 } },
  });
  msg.content.forEach((b, index) => {
    if (b.type === 'text') {
      out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } });
    } else {
      out += sse('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
      });
      out += sse('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) },
      });
    }
    out += sse('content_block_stop', { type: 'content_block_stop', index });
  });
  out += sse('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: msg.stop_reason, stop_sequence: null },
    usage: { output_tokens: msg.usage.output_tokens },
  });
  out += sse('message_stop', { type: 'message_stop' });
  return out;
}

function responsesItems(ans) {
  if (ans.tool) {
    const call = {
      type: 'function_call',
      id: nextId('fc_mock'),
      call_id: nextId('call_mock'),
      name: ans.tool.name,
      arguments: JSON.stringify(ans.tool.args),
      status: 'completed',
    };
    if (ans.tool.namespace) call.namespace = ans.tool.namespace;
    return [call];
  }
  return [
    {
      type: 'message',
      id: nextId('msg_mock'),
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: ans.text, annotations: [] }],
    },
  ];
}

function responsesObject(body, items, status) {
  return {
    id: body.__id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: body.model || 'mock',
    output: status === 'completed' ? items : [],
    parallel_tool_calls: false,
    tool_choice: 'auto',
    tools: [],
    usage:
      status === 'completed'
        ? {
            input_tokens: 10,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 5,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 15,
          }
        : null,
  };
}

function responsesStream(body, ans) {
  body.__id = nextId('resp_mock');
  const items = responsesItems(ans);
  let n = 0;
  const ev = (type, data) => sse(type, { type, sequence_number: n++, ...data });
  let out = ev('response.created', { response: responsesObject(body, items, 'in_progress') });
  out += ev('response.in_progress', { response: responsesObject(body, items, 'in_progress') });
  items.forEach((item, output_index) => {
    if (item.type === 'function_call') {
      out += ev('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } });
      out += ev('response.function_call_arguments.delta', { output_index, item_id: item.id, delta: item.arguments });
      out += ev('response.function_call_arguments.done', { output_index, item_id: item.id, arguments: item.arguments });
      out += ev('response.output_item.done', { output_index, item });
    } else {
      const text = item.content[0].text;
      out += ev('response.output_item.added', { output_index, item: { ...item, content: [], status: 'in_progress' } });
      out += ev('response.content_part.added', {
        output_index,
        item_id: item.id,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
      out += ev('response.output_text.delta', { output_index, item_id: item.id, content_index: 0, delta: text });
      out += ev('response.output_text.done', { output_index, item_id: item.id, content_index: 0, text });
      out += ev('response.content_part.done', { output_index, item_id: item.id, content_index: 0, part: item.content[0] });
      out += ev('response.output_item.done', { output_index, item });
    }
  });
  out += ev('response.completed', { response: responsesObject(body, items, 'completed') });
  return out;
}

function chatStream(body, ans) {
  const id = nextId('chatcmpl-mock');
  const created = Math.floor(Date.now() / 1000);
  const model = body.model || 'mock';
  const chunk = (delta, finish_reason = null, extra = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`;
  let out = chunk({ role: 'assistant', content: '' });
  if (ans.tool) {
    out += chunk({
      tool_calls: [
        {
          index: 0,
          id: nextId('call_mock'),
          type: 'function',
          function: { name: ans.tool.name, arguments: JSON.stringify(ans.tool.args) },
        },
      ],
    });
    out += chunk({}, 'tool_calls');
  } else {
    out += chunk({ content: ans.text });
    out += chunk({}, 'stop');
  }
  out += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`;
  out += 'data: [DONE]\n\n';
  return out;
}

function chatObject(body, ans) {
  const message = ans.tool
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: nextId('call_mock'), type: 'function', function: { name: ans.tool.name, arguments: JSON.stringify(ans.tool.args) } },
        ],
      }
    : { role: 'assistant', content: ans.text };
  return {
    id: nextId('chatcmpl-mock'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model || 'mock',
    choices: [{ index: 0, message, finish_reason: ans.tool ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function geminiResponse(model, ans) {
  const parts = ans.tool ? [{ functionCall: { name: ans.tool.name, args: ans.tool.args } }] : [{ text: ans.text }];
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: model,
    responseId: nextId('mock'),
  };
}

// ---------------------------------------------------------------------------------------------------
// Server

/** Write a JSON answer or a whole event stream to `res`. */
const replies = (res) => ({
  json: (code, obj) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(obj));
  },
  stream: (text) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(text);
  },
});

/**
 * Answer one request: the models list, or the model's answer in the API its path names (Anthropic
 * messages, OpenAI responses and chat completions, Gemini). `m`: { decide(req), unknown(obj) }.
 */
function route(m, { req, res, body }) {
  const p = new URL(req.url, 'http://127.0.0.1').pathname;
  const out = replies(res);
  if (req.method === 'GET' && /\/models\/?$/.test(p)) {
    const ids = ['mock-model'];
    return out.json(200, {
      object: 'list',
      data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'mock', type: 'model', display_name: id })),
      models: [],
      has_more: false,
      first_id: ids[0],
      last_id: ids[0],
    });
  }
  if (req.method !== 'POST') {
    m.unknown({ method: req.method, url: req.url });
    return out.json(404, { error: { message: `mock: no route for ${req.method} ${p}`, type: 'not_found' } });
  }
  if (/\/messages\/count_tokens$/.test(p)) return out.json(200, { input_tokens: 10 });
  if (answerPost(m, p, body, out)) return;
  m.unknown({ method: req.method, url: req.url, body });
  return out.json(404, { error: { message: `mock: no route for POST ${p}`, type: 'not_found' } });
}

/** The model's answer to a POST in the API its path names; false for a path of none. */
function answerPost(m, p, body, out) {
  const { decide } = m;
  if (/\/messages$/.test(p)) {
    const msg = anthropicMessage(body, decide(anthropicReq(body)));
    if (body.stream) out.stream(anthropicStream(msg));
    else out.json(200, msg);
  } else if (/\/responses$/.test(p)) {
    const ans = decide(responsesReq(body));
    if (body.stream) out.stream(responsesStream(body, ans));
    else {
      body.__id = nextId('resp_mock');
      out.json(200, responsesObject(body, responsesItems(ans), 'completed'));
    }
  } else if (/\/chat\/completions$/.test(p)) {
    const ans = decide(chatReq(body));
    if (body.stream) out.stream(chatStream(body, ans));
    else out.json(200, chatObject(body, ans));
  } else {
    const g = /\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/.exec(p);
    if (!g) return false;
    if (g[2] === 'countTokens') out.json(200, { totalTokens: 10 });
    else {
      const inner = body.request && !body.contents ? body.request : body; // Code Assist wraps the request
      const resp = geminiResponse(g[1], decide(geminiReq(inner)));
      if (g[2] === 'generateContent') out.json(200, resp);
      else out.stream(`data: ${JSON.stringify(resp)}\n\n`);
    }
  }
  return true;
}

/**
 * Start the mock. Options: maxRequests (default 1000), maxMs (default 30 min), unknownLog (file path),
 * requestLog (file path: every request's method, url and body, one JSON line each), answer (a function
 * of the normalised request returning an answer, or undefined to leave it to `plan`).
 * Resolves to { url, port, close(), requests: number, closed: Promise<void> }.
 */
export function startMock(opts = {}) {
  const maxRequests = opts.maxRequests ?? 1000;
  // opts.answer(req) may script an answer of its own (the demo recorder's sessions); undefined = plan's
  const decide = (req) => opts.answer?.(req) ?? plan(req);
  const maxMs = opts.maxMs ?? 30 * 60 * 1000;
  const state = { requests: 0 };
  const log = (file, obj) => {
    if (file)
      try {
        appendFileSync(file, `${JSON.stringify(obj)}\n`);
      } catch {
        /* logging is best effort */
      }
  };

  const server = createServer((req, res) => {
    state.requests++;
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        body = { __raw: raw };
      }
      log(opts.requestLog, { t: new Date().toISOString(), method: req.method, url: req.url, body });
      try {
        route({ decide, unknown: (obj) => log(opts.unknownLog, obj) }, { req, res, body });
      } catch (e) {
        log(opts.unknownLog, { error: String(e?.stack || e), method: req.method, url: req.url, body });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(e?.message || e), type: 'mock_error' } }));
      }
      if (state.requests >= maxRequests) stop();
    });
  });

  let timer;
  let resolveClosed;
  const closed = new Promise((r) => {
    resolveClosed = r;
  });
  function stop() {
    clearTimeout(timer);
    server.close(() => resolveClosed());
    server.closeAllConnections?.();
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      timer = setTimeout(stop, maxMs);
      timer.unref?.();
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        closed,
        get requests() {
          return state.requests;
        },
        close: () => {
          stop();
          return closed;
        },
      });
    });
  });
}

// `node mock-server.mjs [maxMs] [maxRequests]`: run standalone, print the URL.
if (import.meta.url === `file://${process.argv[1]}`) {
  const m = await startMock({
    maxMs: Number(process.argv[2] || 600000),
    maxRequests: Number(process.argv[3] || 1000),
    unknownLog: process.env.MOCK_UNKNOWN_LOG,
    requestLog: process.env.MOCK_REQUEST_LOG,
  });
  process.stdout.write(`${m.url}\n`);
  await m.closed;
}
