/**
 * Labeled queries for the relevance test: requests as a user would type them
 * (our own words, not the skills' descriptions), each with the skill a user
 * would want from the shared corpus. Where the corpus holds near-duplicates
 * that serve the request equally well, each of them is listed: a query counts
 * as found when any of its names is in the top 5.
 */
/** @type {readonly import("./queries.d.mts").LabeledQuery[]} */
export const QUERIES = [
  { query: 'fill in the fields of this PDF form and merge two PDFs', want: ['pdf'] },
  { query: 'edit my Word document and keep tracked changes', want: ['docx'] },
  { query: 'make a slide deck for the quarterly review as a pptx', want: ['pptx', 'slides'] },
  { query: 'add a formula column to my Excel workbook', want: ['xlsx', 'spreadsheet'] },
  {
    query: 'look over my pull request before I merge it',
    want: ['code-review', 'code-reviewer', 'requesting-code-review', 'code-review-excellence'],
  },
  {
    query: 'the app crashes with a stack trace and I cannot find why',
    want: ['debugging-wizard', 'systematic-debugging', 'debugger', 'diagnosing-bugs', 'debugging-strategies'],
  },
  { query: 'write terraform modules for our AWS infrastructure', want: ['terraform-engineer', 'terraform-module-library'] },
  { query: 'package our kubernetes app as a helm chart', want: ['helm-chart-scaffolding'] },
  { query: 'why is my website not ranking on google, check technical SEO', want: ['seo-audit', 'seo-fundamentals'] },
  { query: 'write a cold outreach email to a B2B prospect', want: ['cold-email', 'compose-outreach'] },
  {
    query: 'accept card payments and subscriptions with Stripe checkout',
    want: ['stripe-integration', 'stripe-best-practices', 'stripe-integration-expert'],
  },
  { query: 'turn this paragraph into spoken audio with a natural voice', want: ['text-to-speech', 'speech'] },
  { query: 'transcribe the recording of our meeting into text', want: ['transcribe', 'speech-to-text', 'whisper'] },
  { query: 'find a time slot when the whole team is free next week', want: ['recipe-find-free-time'] },
  { query: 'set an out of office auto reply in gmail while I am on holiday', want: ['recipe-create-vacation-responder'] },
  { query: 'git rebase stopped with conflicts, help me fix them', want: ['resolving-merge-conflicts'] },
  { query: 'generate a changelog from the commits since the last release', want: ['changelog-automation', 'release-notes'] },
  { query: "write a blameless postmortem for last night's outage", want: ['postmortem-writing', 'incident-response'] },
  { query: 'strengths weaknesses opportunities and threats for our product', want: ['swot-analysis'] },
  { query: 'draft a non-disclosure agreement with a supplier', want: ['draft-nda'] },
  { query: 'proofread this essay for grammar mistakes', want: ['grammar-check'] },
  { query: 'we store personal data of EU customers, what do we need for GDPR', want: ['gdpr-data-handling'] },
  { query: 'fine-tune llama with LoRA on a single GPU', want: ['lora-qlora-recipes', 'peft-fine-tuning', 'unsloth'] },
  { query: 'serve a large language model with high throughput using vllm', want: ['serving-llms-vllm'] },
  { query: 'quantize a model to run on my laptop CPU with llama.cpp', want: ['gguf-quantization', 'llama-cpp'] },
  { query: 'build retrieval augmented generation over our documents', want: ['rag-implementation', 'rag-architect', 'llamaindex'] },
  {
    query: 'my postgres query is slow, read the explain plan',
    want: ['postgres-pro', 'supabase-postgres-best-practices', 'database-optimizer'],
  },
  { query: 'set up navigation between screens in my Expo app', want: ['expo-router'] },
  { query: 'publish my expo app to the app store and google play', want: ['eas-app-stores'] },
  { query: 'add sign in with google to my firebase web app', want: ['firebase-auth-basics'] },
  { query: 'turn this figma frame into react code', want: ['figma'] },
  { query: 'take a screenshot of the whole web page including below the fold', want: ['full-page-screenshot'] },
  { query: 'write the failing test first then implement, red green refactor', want: ['tdd', 'test-driven-development'] },
  { query: 'write end to end browser tests with playwright', want: ['playwright-expert', 'e2e-testing-patterns', 'playwright'] },
  { query: 'make my bash scripts more robust with strict mode and error handling', want: ['bash-defensive-patterns'] },
  { query: 'check our site for WCAG accessibility problems', want: ['wcag-audit-patterns', 'web-design-guidelines'] },
  { query: 'manage global state in react with zustand or redux', want: ['react-state-management'] },
  { query: 'write python inside an n8n code node', want: ['n8n-code-python'] },
  { query: 'read a secret from 1password in a script', want: ['1password'] },
  { query: 'show me the latest production errors from sentry', want: ['sentry'] },
  { query: 'build a grafana dashboard for our service metrics', want: ['grafana-dashboards'] },
  { query: 'generate an image from a text prompt with stable diffusion', want: ['stable-diffusion-image-generation'] },
  { query: 'make a whoosh sound effect for my video', want: ['sound-effects'] },
  { query: 'dub our product video into spanish keeping the same voices', want: ['dubbing'] },
  { query: 'remind customers who have not paid their invoices', want: ['invoice-chase'] },
  { query: 'how big is the market for our product, TAM SAM SOM', want: ['market-sizing', 'market-sizing-analysis'] },
  { query: 'run our sprint retrospective', want: ['retro'] },
  { query: 'summarize this meeting transcript with decisions and action items', want: ['summarize-meeting', 'call-summary'] },
  { query: 'did the A/B test win, is the result significant', want: ['ab-test-analysis', 'ab-testing'] },
  { query: 'write an airflow DAG for the nightly data pipeline', want: ['airflow-dag-patterns'] },
  { query: 'set up a python project with uv and a virtual environment', want: ['uv-package-manager'] },
  { query: 'worker pool with goroutines and channels in go', want: ['go-concurrency-patterns', 'golang-pro'] },
  { query: 'threat model our new API with STRIDE', want: ['stride-analysis-patterns'] },
  { query: 'track training runs and compare experiments in mlflow', want: ['mlflow'] },
  { query: 'get structured JSON output validated by pydantic from an LLM', want: ['instructor'] },
  { query: 'make an interactive chart with d3', want: ['d3-viz'] },
  { query: 'improve the copy on our landing page', want: ['copywriting', 'copy-editing'] },
  { query: 'my text sounds like chatgpt wrote it, make it more human', want: ['avoid-ai-writing'] },
  { query: 'speed up our turborepo builds with remote caching', want: ['turborepo-caching'] },
  { query: 'make our .NET app work with native AOT', want: ['dotnet-aot-compat'] },
  { query: 'create a new agent skill with a SKILL.md', want: ['create-skill', 'writing-skills', 'skill-development'] },
  { query: 'build an MCP server that exposes our API as tools', want: ['mcp-builder', 'mcp-developer'] },
  { query: 'record the decision to move to event sourcing as an ADR', want: ['architecture-decision-records', 'adr-skill'] },
  { query: 'write user stories with acceptance criteria for the new feature', want: ['user-stories'] },
  { query: 'send a message to a discord channel', want: ['discord'] },
  { query: 'find a good plumber near me with reviews', want: ['yelp-search'] },
  { query: 'cut our cloud bill on AWS, rightsizing and reserved instances', want: ['cost-optimization'] },
  { query: 'mutual TLS between services in the mesh', want: ['mtls-configuration'] },
  { query: 'backtest my trading strategy on historical prices', want: ['backtesting-frameworks'] },
  { query: 'write an offer letter and employment contract for a new hire', want: ['employment-contract-templates', 'job-post-builder'] },
];

/**
 * Requests that should activate no skill: chit-chat, follow-ups inside a
 * conversation, general knowledge and small tasks any model does unaided.
 * Written by us, in users' words, without looking at what the ranker does with
 * them; auto-activation on any of these is a false activation.
 */
/** @type {readonly string[]} */
export const NEGATIVES = [
  "what's the weather like today?",
  'thanks!',
  'thank you, that was really helpful',
  'hi there',
  'good morning, how are you?',
  'ok',
  'yes please, go ahead',
  'no, the other one',
  'can you say that again more simply?',
  'what did you mean by the second point?',
  'continue',
  'never mind, forget it',
  'summarise this paragraph for me',
  'tell me a joke',
  'what time is it in Tokyo right now?',
  "what's 15% of 240?",
  'who won the world cup in 2018?',
  'recommend a good book for a long flight',
  'what should I cook for dinner tonight?',
  'how many days until Christmas?',
  'translate "good night" into Italian',
  'what is the capital of Australia?',
  'explain the difference between weather and climate',
  'give me a synonym for happy',
  'is it going to rain this weekend in London?',
  'how do I boil an egg?',
  'write a short poem about autumn leaves',
  'what does "ubiquitous" mean?',
  'convert 30 degrees celsius to fahrenheit',
  'I am feeling tired today',
  'can you keep your answers shorter from now on?',
  'that is wrong, try again',
  'why is the sky blue?',
  'suggest a name for my new puppy',
  'what year did the Berlin wall fall?',
  'how far is the moon from the earth?',
  'list three fun facts about octopuses',
  'rephrase that sentence to sound friendlier',
  'what are some good stretches after running?',
  'give me ideas for a birthday present for my dad',
  'how long should I steep green tea?',
  'who wrote Pride and Prejudice?',
  'please wait while I check something',
  'sounds good, let us do that',
  'what is the plural of cactus?',
  'explain your reasoning',
  'can you be more specific?',
  'help',
  'I have a question',
  'what can you do?',
];

/**
 * More requests that should activate nothing, written after the scale and
 * threshold had been tuned on NEGATIVES, to check the choice on text it was
 * not tuned on.
 */
/** @type {readonly string[]} */
export const NEGATIVES_HELD_OUT = [
  'hello!',
  'cheers, that fixed it',
  'perfect, thanks a lot',
  'can you repeat the last part?',
  'go on',
  'wait, what?',
  'how tall is mount everest?',
  'what is the boiling point of water at altitude?',
  'who painted the mona lisa?',
  'give me a fun fact about space',
  'how do you pronounce quinoa?',
  'what rhymes with orange?',
  'what is a good name for a cat?',
  'how many ounces in a pound?',
  'what day of the week was 1 January 2000?',
  'is a tomato a fruit or a vegetable?',
  'make that shorter',
  'put it in bullet points',
  'use a more formal tone',
  'can you do it in fewer words?',
  'what would you do in my place?',
  'i just got back from holiday',
  'my cat knocked my coffee over',
  'do you like music?',
  'what is your favourite colour?',
  'lol',
  'hmm, not sure about that',
  'let me think about it',
  'tell me something interesting',
  'good night',
];

/**
 * More labeled requests, written with NEGATIVES_HELD_OUT for the same
 * reason: the auto-activation scale and threshold were not tuned on them.
 */
/** @type {readonly import("./queries.d.mts").LabeledQuery[]} */
export const QUERIES_HELD_OUT = [
  { query: 'our spark job is slow and keeps spilling to disk', want: ['spark-engineer'] },
  { query: 'book the month-end close entries for accrued expenses', want: ['journal-entry-prep'] },
  { query: 'put together the weekly update for leadership with risks', want: ['status-report'] },
  { query: 'check this vendor contract before I sign it', want: ['contract-review'] },
  { query: 'answer like a pirate from now on', want: ['pirate-voice'] },
  { query: "move tomorrow's standup in my google calendar to friday and tell everyone", want: ['recipe-reschedule-meeting'] },
  { query: 'compare two tabs of my google sheet and show what differs', want: ['recipe-compare-sheet-tabs'] },
  { query: 'add husky hooks so prettier and the tests run before each commit', want: ['setup-pre-commit'] },
  { query: 'a battlecard for sales against our main competitor', want: ['competitive-battlecard'] },
  { query: 'questions to ask customers in discovery interviews', want: ['interview-script'] },
  { query: 'store our CI credentials in vault instead of env files', want: ['secrets-management'] },
  { query: 'speed up our bazel build with remote execution', want: ['bazel-build-optimization'] },
  { query: 'evaluate the answers of our LLM app with automated metrics', want: ['llm-evaluation'] },
  { query: 'similarity search over millions of embeddings', want: ['faiss'] },
  { query: 'rent GPUs on lambda cloud for training', want: ['lambda-labs-gpu-cloud'] },
  { query: 'make LLM generation faster with a small draft model', want: ['speculative-decoding'] },
  { query: 'DCF valuation of a company from its financial statements', want: ['financial-analyst'] },
  { query: 'turn our react web app into an ios and android app', want: ['expo-web-to-native'] },
  { query: 'fetch many URLs concurrently in python with asyncio', want: ['async-python-patterns'] },
  { query: 'lazy-loaded routes with guards in angular', want: ['angular-architect'] },
];

/**
 * Labeled requests over the project's own five example skills
 * (fixtures/skills), the first the demo's: a small library, where most of a
 * request's words are unknown to the index, so the threshold is checked on
 * both ends of the library-size range.
 */
/** @type {readonly import("./queries.d.mts").LabeledQuery[]} */
export const FIXTURE_QUERIES = [
  { query: 'Can you review the change I made to src/auth/session.ts?', want: ['code-review'] },
  { query: 'look over this pull request before I merge it', want: ['code-review'] },
  { query: 'the build fails with a null pointer exception and I have no idea why', want: ['debug'] },
  { query: 'this function returns the wrong total, find the bug', want: ['debug'] },
  { query: 'ship my branch to staging', want: ['deploy-staging'] },
  { query: 'push the latest changes to the staging environment', want: ['deploy-staging'] },
  { query: 'how does the payment module work? I am new here', want: ['explain'] },
  { query: 'walk me through what this codebase does', want: ['explain'] },
  { query: 'add unit tests for the date parser', want: ['test-gen'] },
  { query: 'raise test coverage of the billing service', want: ['test-gen'] },
];
