package shell

import "html/template"

// Assistant is the content of the simulator's stand-in for the Assistant
// app's page: the task form, filled and run by static/js/assistant.js
// through the Task Processing OCS API.
const Assistant template.HTML = `<div id="app-content" class="ncsim-app app-assistant">
<h2>Assistant</h2>
<form id="assistant-form" class="assistant-form" autocomplete="off">
<div class="declarative-form-field"><label class="field-title" for="assistant-type">Task</label>
<select id="assistant-type"></select>
<span class="hint" id="assistant-type-description"></span></div>
<div id="assistant-inputs"></div>
<div class="assistant-actions"><button type="submit" class="primary" id="assistant-run">Run</button>
<button type="button" id="assistant-cancel" hidden>Cancel</button></div>
</form>
<p class="ncsim-muted" id="assistant-empty" hidden>No task types are available: no provider is registered.</p>
<section id="assistant-result" aria-live="polite" hidden>
<h3>Result</h3>
<p class="assistant-status" id="assistant-status"></p>
<div id="assistant-output"></div>
</section>
</div>`
