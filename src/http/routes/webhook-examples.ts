// Examples of the webhook and event resources for the OpenAPI document, realistic and valid: a test lints
// the document (Spectral checks every example against its schema).
const PET = { id: 1, name: 'Rex', categoryId: 3, status: 'available' };
const WEBHOOK = {
  id: 'wh_01KAZ3QJ5V8N2M4P6R8T0W2Y4A',
  url: 'https://hooks.example.com/animal-store',
  events: ['pet.created', 'order.updated'],
  description: 'Shop front',
  status: 'enabled',
  disabledReason: null,
  createdAt: '2026-11-26T09:30:00.000Z',
};
const TEST_EVENT = {
  id: 'evt_qhzkwmbrtx1025',
  type: 'webhook.test',
  timestamp: '2026-11-26T09:32:00.000Z',
  data: { webhookId: WEBHOOK.id },
};

export const EXAMPLES = {
  newWebhook: { url: WEBHOOK.url, events: WEBHOOK.events, description: WEBHOOK.description },
  webhook: WEBHOOK,
  webhookWithSecret: { ...WEBHOOK, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwp0bu1ERWtvA=' },
  event: { id: 'evt_qhzkwmbrtx1024', type: 'pet.created', timestamp: '2026-11-26T09:31:00.000Z', data: PET },
  testEvent: TEST_EVENT,
  attempt: {
    id: 'att_01KAZ3QN0B1C2D3E4F5G6H7J8K',
    eventId: 'evt_qhzkwmbrtx1024',
    type: 'pet.created',
    attemptedAt: '2026-11-26T09:31:00.020Z',
    status: 503,
    error: 'the receiver answered 503',
    durationMs: 42,
    nextAttemptAt: '2026-11-26T09:31:05.100Z',
    response: 'Service Unavailable',
  },
  recovery: { webhookId: WEBHOOK.id, since: '2026-11-25T00:00:00Z', events: 12 },
  /** Each event type's payload, for the document's `webhooks`. */
  payloads: {
    'pet.created': { id: 'evt_qhzkwmbrtx1024', type: 'pet.created', timestamp: '2026-11-26T09:31:00.000Z', data: PET },
    'pet.updated': {
      id: 'evt_qhzkwmbrtx1027',
      type: 'pet.updated',
      timestamp: '2026-11-26T09:40:00.000Z',
      data: { ...PET, status: 'pending' },
    },
    'order.created': {
      id: 'evt_qhzkwmbrtx1026',
      type: 'order.created',
      timestamp: '2026-11-26T09:40:00.000Z',
      data: { id: 1, petId: 1, status: 'placed', createdAt: '2026-11-26T09:40:00.000Z' },
    },
    'order.updated': {
      id: 'evt_qhzkwmbrtx1028',
      type: 'order.updated',
      timestamp: '2026-11-26T10:00:00.000Z',
      data: { id: 1, petId: 1, status: 'delivered', createdAt: '2026-11-26T09:40:00.000Z' },
    },
    'webhook.test': TEST_EVENT,
  },
} as const;
