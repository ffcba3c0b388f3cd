// Generated from docs/openapi.json by scripts/write-openapi.ts: do not edit by hand.

/** The events of a Session, as GET /v1/sessions/{id}/events lists them. */
export const sessionEventsSchema = {
  "type": "array",
  "items": {
    "type": "object",
    "required": [
      "event_id",
      "sequence",
      "type",
      "revision",
      "actor",
      "created_at"
    ],
    "additionalProperties": false,
    "properties": {
      "event_id": {
        "type": "string"
      },
      "sequence": {
        "type": "integer",
        "minimum": 1
      },
      "type": {
        "type": "string",
        "enum": [
          "response.accepted",
          "revision.published",
          "session.completed",
          "session.extended",
          "session.expired",
          "notification.sent",
          "notification.failed",
          "session.link_reissued",
          "decision.resolved"
        ],
        "description": "session.link_reissued: the owner replaced human_url (POST /v1/sessions/{id}/link); the event never carries the link."
      },
      "revision": {
        "type": "integer",
        "minimum": 1
      },
      "actor": {
        "type": "object",
        "required": [
          "assurance"
        ],
        "additionalProperties": false,
        "properties": {
          "assurance": {
            "type": "string",
            "enum": [
              "link_holder",
              "owner",
              "email_link",
              "slack_channel",
              "service"
            ],
            "description": "`email_link`: through a responder's own emailed link (responder_id names them); `slack_channel`: through the link posted to the workspace's Slack channel (responder_id names the channel); `service`: what the service records itself (a message sent or given up, a link's lapse)."
          },
          "responder_id": {
            "type": "string"
          }
        }
      },
      "responder_id": {
        "type": "string",
        "description": "notification.sent and notification.failed: whom the message was for."
      },
      "kind": {
        "type": "string",
        "enum": [
          "notify",
          "reminder",
          "escalation"
        ],
        "description": "notification.sent and notification.failed: which message."
      },
      "reason": {
        "type": "string",
        "description": "notification.failed: why it was given up."
      },
      "outcome": {
        "type": "string",
        "enum": [
          "approved",
          "vetoed"
        ],
        "description": "decision.resolved: how the decision by several people resolved."
      },
      "responses": {
        "type": "array",
        "items": {
          "type": "string"
        },
        "description": "decision.resolved: the Event ids of the deciding answers, in the order committed."
      },
      "action_id": {
        "type": "string"
      },
      "data": {
        "type": "object"
      },
      "created_at": {
        "type": "string",
        "format": "date-time"
      },
      "receipt": {
        "type": [
          "string",
          "null"
        ],
        "pattern": "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$"
      },
      "link_expires_at": {
        "type": "string",
        "format": "date-time",
        "description": "session.extended: the link's new deadline; session.expired: the deadline that lapsed with the current revision unanswered."
      }
    }
  }
} as const;

/** The addresses a Session's notification plan emails (NotifyPlan's `email`). */
export const notifyEmailSchema = {
  "type": "array",
  "minItems": 1,
  "maxItems": 20,
  "items": {
    "type": "string",
    "minLength": 3,
    "maxLength": 254,
    "pattern": "^[^\\s@<>()\",;:\\\\\\[\\]]+@[^\\s@<>()\",;:\\\\\\[\\]]+$"
  }
} as const;
