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
          "session.expired"
        ]
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
              "service"
            ]
          }
        }
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
